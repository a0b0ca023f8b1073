import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { runCli } from '../helpers/cli.ts'

const README = new URL('../../../../README.md', import.meta.url)
const ENV_NAME = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/

/** Every variable the README's Configuration table names: its first column, and those its meanings name in full. */
function readmeVariables(): string[] {
  const text = readFileSync(README, 'utf8')
  const section = text.slice(text.indexOf('\n## Configuration\n'), text.indexOf('\n## ', text.indexOf('\n## Configuration\n') + 1))
  const names = new Set<string>()
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue
    for (const [, name] of line.matchAll(/`([^`]+)`/g)) if (ENV_NAME.test(name!)) names.add(name!)
  }
  return [...names]
}

test("`animal-store help` names every variable of the README's Configuration table", async () => {
  const variables = readmeVariables()
  // The table has over twenty rows: far fewer means the parse, not the help, went wrong.
  assert.ok(variables.length >= 20, `found only ${variables.length} variables in the README: ${variables.join(', ')}`)
  for (const first of ['PORT', 'DATABASE_URL', 'RATE_LIMIT_MAX_ADDRESSES', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'PAGE_CACHE_ENTRIES']) {
    assert.ok(variables.includes(first), `the README's table lists ${first}`)
  }
  const help = await runCli(['help'], {})
  assert.equal(help.code, 0, help.stderr)
  const named = new Set(help.stdout.match(/\b[A-Z][A-Z0-9_]+\b/g))
  const missing = variables.filter((name) => !named.has(name))
  assert.deepEqual(missing, [], `animal-store help does not name ${missing.join(', ')}`)
})
