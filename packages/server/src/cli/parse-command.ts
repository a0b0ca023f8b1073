import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './usage-error.ts'

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>
/** What parseArgs answers for `options`, strictly and with positionals allowed. */
export type ParsedValues<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>
>['values']

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

/**
 * The flags and id of `<group> <command> [id] --flags`, parsed strictly: only the flags in
 * `allowed` (the command's own of `options`), and exactly one positional, the id, when `idName`
 * is given (none otherwise). Anything else is a UsageError naming what was wrong.
 */
export function commandFlags<const O extends ParseArgsOptionsConfig>(
  usage: { group: string; command: string; allowed: readonly string[]; idName?: string | undefined },
  args: string[],
  options: O
): { values: ParsedValues<O>; id: string } {
  const { group, command, allowed, idName } = usage
  let parsed: { values: ParsedValues<O>; positionals: string[] }
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options })
  } catch (error) {
    throw new UsageError(`${group} ${command}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`)
  }
  const { values, positionals } = parsed
  const extra = Object.keys(values).filter((flag) => !allowed.includes(flag))
  if (extra.length > 0) throw new UsageError(`${group} ${command} does not take --${extra.join(', --')}`)
  if (positionals.length !== (idName === undefined ? 0 : 1))
    throw new UsageError(
      idName === undefined
        ? `${group} ${command} takes no positional arguments (got ${positionals.join(' ')})`
        : `${group} ${command} takes exactly one ${idName}`
    )
  return { values, id: positionals[0] ?? '' }
}

/** A flag's digits as a number; the service judges the number. */
export function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`${flag} must be a whole number (got ${JSON.stringify(value)})`)
  return Number(value)
}
