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

/** "a, b or c". */
const either = (names: readonly string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`)

/**
 * The command of `animal-store <group> <command> ...` (`plans create ...`) with its arguments,
 * or undefined when help was asked for and printed; none given prints the help and is a
 * UsageError, as is a command not in `commands`.
 */
export function subcommand(
  group: string,
  argv: readonly string[],
  help: string,
  commands: readonly string[]
): { command: string; rest: string[] } | undefined {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(help)
    if (command === undefined) throw new UsageError(`${group} needs a command: ${either(commands)}`)
    return undefined
  }
  if (!commands.includes(command)) throw new UsageError(`unknown ${group} command ${JSON.stringify(command)}: expected ${either(commands)}`)
  return { command, rest }
}
