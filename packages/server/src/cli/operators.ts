import { parseArgs } from 'node:util'
import { OPERATOR_ROLES, type Operator } from '@animal-store/contract'
import { compose } from '../compose.ts'
import type { Config } from '../config.ts'
import { OperatorInputError, OperatorNotFoundError } from '../domain/operators/service.ts'
import { osUser } from './os-user.ts'
import { alignedTable } from './text-table.ts'
import { subcommand } from './parse-command.ts'
import { UsageError } from './usage-error.ts'

export const OPERATORS_HELP = `Usage: animal-store operators <command> [options]

Operators sign in to the operator API and its console (ADMIN_PORT) with a token of their own.

Commands:
  create --role <${OPERATOR_ROLES.join('|')}> --name TEXT [--json]
         Creates an operator and prints their token once (only its hash is stored). A viewer reads
         everything; an admin also creates, changes, rotates, revokes and unbans keys.
  list [--json]      Lists operators (never their tokens).
  revoke <id>        Revokes an operator: their token is refused from the next request on.

To rotate a token, create a new operator and revoke the old one. Every change is in the audit log.
Bad input or an unknown operator id exits with code 2 and changes nothing.
`

const COMMANDS: Record<string, string[]> = { create: ['role', 'name', 'json'], list: ['json'], revoke: [] }

function table(operators: Operator[]): string {
  const rows = operators.map((o) => [o.id, o.name, o.role, o.createdAt, o.revokedAt ?? '-'])
  return alignedTable(['ID', 'NAME', 'ROLE', 'CREATED', 'REVOKED'], rows)
}

function parse(command: string, args: string[]): { values: { role?: string; name?: string; json?: boolean }; positionals: string[] } {
  let parsed
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { role: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } }
    })
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\s*\n\s*/g, ' '))
  }
  const extra = Object.keys(parsed.values).filter((flag) => !COMMANDS[command]!.includes(flag))
  if (extra.length > 0) throw new UsageError(`operators ${command} does not take --${extra.join(', --')}`)
  const wantsId = command === 'revoke'
  if (parsed.positionals.length !== (wantsId ? 1 : 0))
    throw new UsageError(wantsId ? 'operators revoke takes exactly one operator id' : `operators ${command} takes no positional arguments`)
  if (command === 'create' && (parsed.values.role === undefined || parsed.values.name === undefined))
    throw new UsageError(`operators create needs --role <${OPERATOR_ROLES.join('|')}> and --name TEXT`)
  return parsed
}

export async function operatorsCommand(config: Config, argv: string[]): Promise<void> {
  const asked = subcommand('operators', argv, OPERATORS_HELP, Object.keys(COMMANDS))
  if (asked === undefined) return
  const { command, rest } = asked
  const { values, positionals } = parse(command, rest)
  const services = await compose(config, { role: 'cli' })
  const actor = osUser()
  try {
    if (command === 'create') {
      const { operator, token } = await services.operators.create({ role: values.role!, name: values.name! }, actor)
      if (values.json === true) process.stdout.write(`${JSON.stringify({ ...operator, token })}\n`)
      else
        process.stdout.write(
          `Created operator ${operator.id} (${operator.role}, ${operator.name}).\nToken (shown once, store it now):\n${token}\n`
        )
    } else if (command === 'list') {
      const operators = await services.operators.list()
      process.stdout.write(
        values.json === true ? `${JSON.stringify(operators)}\n` : operators.length === 0 ? 'No operators.\n' : `${table(operators)}\n`
      )
    } else {
      const { operator, changed } = await services.operators.revoke(positionals[0]!, actor)
      process.stdout.write(
        changed
          ? `Revoked ${operator.id}; its token is refused from the next request on.\n`
          : `${operator.id} was already revoked at ${operator.revokedAt}.\n`
      )
    }
  } catch (error) {
    throw error instanceof OperatorInputError || error instanceof OperatorNotFoundError ? new UsageError(error.message) : error
  } finally {
    await services.close()
  }
}
