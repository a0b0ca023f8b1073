import { appendFileSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import pino, { type Logger } from 'pino'
import { createLogger } from '../../src/base/logger.ts'

/**
 * Every test process writes its service logs here, at the most verbose level, and records
 * every key secret it issues; after the run, `check-logs.ts` greps the logs for the secrets.
 */
export const LOG_DIR = fileURLToPath(new URL('../../../../test-output/logs/', import.meta.url))
mkdirSync(LOG_DIR, { recursive: true })

export function testLogger(): Logger {
  return createLogger('trace', pino.destination({ dest: `${LOG_DIR}service-${process.pid}.ndjson`, sync: true, append: true }))
}

/** Records an API key or operator token a test issued, for check-logs.ts. */
export function recordIssuedKey(secret: string): void {
  appendFileSync(`${LOG_DIR}issued-keys-${process.pid}.txt`, `${secret}\n`)
}

/** Output of a CLI or serve process, except what is meant to show a secret (`keys create`, `operators create`). */
export function recordProcessOutput(name: string, output: string): void {
  appendFileSync(`${LOG_DIR}process-${process.pid}.log`, `--- ${name}\n${output}\n`)
}
