import pino, { type Logger } from 'pino'
import { BufferedOutput } from './buffered-output.ts'

/** Paths that may hold a secret; pino replaces them before a line is written. */
const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'secret', 'token']

/** Lines wait until this many characters have gathered: one write(2) per ~20 request lines rather than one each. */
const LOG_BUFFER_BYTES = 4096
/** And at most this long: what a process killed outright (SIGKILL, out of memory) can lose. */
const LOG_FLUSH_INTERVAL_MS = 1000

let stdout: BufferedOutput | undefined

/**
 * Standard output, buffered: written synchronously once LOG_BUFFER_BYTES wait, every
 * LOG_FLUSH_INTERVAL_MS, and at exit (process.exit, the end of the event loop, an uncaught
 * exception), so a SIGTERM or a crash loses no line. One per process.
 */
function bufferedStdout(): BufferedOutput {
  if (stdout !== undefined) return stdout
  const out = new BufferedOutput(1, LOG_BUFFER_BYTES)
  setInterval(() => out.flush(), LOG_FLUSH_INTERVAL_MS).unref()
  process.once('exit', () => out.flushSync())
  return (stdout = out)
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'animal-store' } },
    destination ?? bufferedStdout()
  )
}

/**
 * Text that may hold a secret: an API key's or an operator token's prefix (any case), or a run
 * of exactly 43 letters and digits standing alone, the length of a secret's random part
 * (`Bearer <it>`, `x.<it>`); longer runs (a SHA-256 in hex) and UUIDs or ULIDs are not.
 */
export const KEY_SHAPED = /as_(?:live|admin)_|(?:^|[^0-9a-z])[0-9a-z]{43}(?![0-9a-z])/i
/** A URL that may hold one: either shape raw, `_` perhaps percent-encoded (anything encoded is decoded first). */
const KEY_SHAPED_RAW = /as(?:_|%5f)(?:live|admin)(?:_|%5f)|[0-9a-z]{43}/i
const URL_TOKEN = /[^/?&=;#+\s]+/g

/** Percent-decodes what decodes, leaves the rest; repeated, so `%255f` comes out as `_`. */
function looseDecode(token: string): string {
  let text = token
  for (let round = 0; round < 4 && text.includes('%'); round++) {
    const next = text.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    if (next === text) break
    text = next
  }
  return text.toLowerCase()
}

/**
 * A client that puts its key in a URL must not get it logged: every path segment or query
 * name or value that is key-shaped (KEY_SHAPED: raw or percent-encoded, even twice) is
 * masked whole.
 */
export function redactSecrets(url: string): string {
  if (!url.includes('%') && !KEY_SHAPED_RAW.test(url)) return url
  return url.replace(URL_TOKEN, (token) => (KEY_SHAPED.test(looseDecode(token)) ? '[redacted]' : token))
}
