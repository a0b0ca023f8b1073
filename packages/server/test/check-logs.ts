// Run after the whole suite (`npm test`): no key secret or operator token issued by any test may appear in any
// log the service wrote during the run, at any level; and no response was sent twice or lost
// (a client sees those only as a dropped keep-alive connection, which tests rarely notice).
import { readdirSync, readFileSync } from 'node:fs'
import { SENT_TWICE, WRITE_FAILED } from '../src/http/hooks/connections/write-coalescing.ts'
import { LOG_DIR } from './helpers/logs.ts'

const files = readdirSync(LOG_DIR)
const secrets = new Set(
  files
    .filter((f) => f.startsWith('issued-keys-'))
    .flatMap((f) =>
      readFileSync(LOG_DIR + f, 'utf8')
        .split('\n')
        .filter(Boolean)
    )
)
const logs = files.filter((f) => f.startsWith('service-') || f.startsWith('process-'))
const text = logs.map((f) => readFileSync(LOG_DIR + f, 'utf8')).join('\n')
const lines = text.split('\n').filter(Boolean).length

// A check that cannot fail is no check: there must be keys and logs to compare.
const tokens = [...secrets].filter((secret) => secret.startsWith('as_admin_')).length
if (secrets.size < 50 || tokens < 5 || lines < 1000) {
  console.error(`check-logs: too little to check (${secrets.size} keys, ${tokens} operator tokens, ${lines} log lines): did the suite run?`)
  process.exit(1)
}
// API keys (as_live_) and operator tokens (as_admin_), whole or without their prefix.
const leaked = [...secrets].filter((secret) => text.includes(secret) || text.includes(secret.replace(/^as_[a-z]+_/, '')))
if (leaked.length > 0 || /as_(?:live|admin)_[0-9A-Za-z]{43}/.test(text)) {
  console.error(`check-logs: ${leaked.length} issued key(s) or operator token(s) found in the service logs (${LOG_DIR})`)
  process.exit(1)
}
const mishandled = [WRITE_FAILED, SENT_TWICE, 'Reply was already sent'].filter((message) => text.includes(message))
if (mishandled.length > 0) {
  console.error(`check-logs: the service logged ${mishandled.map((m) => JSON.stringify(m)).join(', ')} (${LOG_DIR})`)
  process.exit(1)
}
console.log(
  `check-logs: ${secrets.size - tokens} issued keys and ${tokens} operator tokens, none in ${lines} log lines from ${logs.length} files; no response sent twice or lost`
)
