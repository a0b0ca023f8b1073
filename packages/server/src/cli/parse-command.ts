import { parseArgs } from 'node:util'
import { UsageError } from './usage-error.ts'

/**
 * The arguments of a command that takes `--json` and exactly the named positionals
 * (`backup <file> [--json]`); anything else is a UsageError naming what was wrong.
 */
export function parseCommand(command: string, args: string[], positionals: string[]): { json: boolean; values: string[] } {
  let parsed: { values: { json?: boolean }; positionals: string[] }
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { json: { type: 'boolean' } } })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`)
  }
  const given = parsed.positionals
  if (given.length < positionals.length) throw new UsageError(`${command} needs ${positionals.map((name) => `<${name}>`).join(' ')}`)
  if (given.length > positionals.length)
    throw new UsageError(
      `${command} takes ${positionals.length === 0 ? 'no arguments' : `only ${positionals.join(' ')}`} (got ${given.join(' ')})`
    )
  return { json: parsed.values.json === true, values: given }
}
