import type { Config } from '../config.ts'
import { parseCommand } from './parse-command.ts'

export const HEALTHCHECK_HELP = `Usage: animal-store healthcheck

Asks the serve process of this configuration (HOST, PORT) whether it is ready: GET /readyz on the
local port. Exits 0 when it answers 200, 1 otherwise (not listening, not ready, or no answer within
3 seconds), with the reason on stderr. For a container's HEALTHCHECK or a supervisor; needs no curl.
`

const TIMEOUT_MS = 3000

/** Where to reach a listener bound to `host` from this machine: a wildcard address is reached on loopback. */
function localOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}

export async function healthcheckCommand(config: Config, argv: string[]): Promise<void> {
  parseCommand('healthcheck', argv, [])
  const url = `${localOrigin(config.host, config.port)}/readyz`
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    const body = await response.text()
    if (response.status === 200) return
    process.stderr.write(`animal-store healthcheck: ${url} answered ${response.status}: ${body.slice(0, 500)}\n`)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    process.stderr.write(`animal-store healthcheck: ${url} did not answer (${cause})\n`)
  }
  process.exitCode = 1
}
