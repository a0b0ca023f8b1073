import type { CreateCustomerInput, OwnLimitsInput, UpdateCustomerInput } from '../../domain/customers/changes.ts'
import { commandFlags, wholeNumber, type ParsedValues } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'

// What `customers <command>` was given: its flags read and checked as far as the command line
// alone can tell, before the database is opened. The customer service judges the values.

/** Each command and the flags it takes. */
export const COMMANDS: Record<string, readonly string[]> = {
  list: ['json'],
  create: ['name', 'plan', 'external-id', 'per-minute', 'per-day', 'per-month', 'json'],
  update: ['name', 'plan', 'external-id', 'no-external-id', 'per-minute', 'per-day', 'per-month', 'plan-limits', 'json'],
  unban: []
}

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'external-id': { type: 'string' },
  'no-external-id': { type: 'boolean' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  'per-month': { type: 'string' },
  'plan-limits': { type: 'boolean' },
  json: { type: 'boolean' }
} as const

type Values = ParsedValues<typeof OPTIONS>

/** The customer's own numbers the flags give, or undefined when none is given. */
function ownLimits(values: Values): OwnLimitsInput | undefined {
  const perMinute = wholeNumber('--per-minute', values['per-minute'])
  const perDay = wholeNumber('--per-day', values['per-day'])
  const perMonth = wholeNumber('--per-month', values['per-month'])
  if (perMinute === undefined && perDay === undefined && perMonth === undefined) return undefined
  if (perMinute === undefined || perDay === undefined) {
    const given = (['per-minute', 'per-day', 'per-month'] as const).filter((flag) => values[flag] !== undefined)
    const missing = (['per-minute', 'per-day'] as const).filter((flag) => values[flag] === undefined)
    throw new UsageError(
      `--${given.join(' and --')} needs --${missing.join(' and --')} too: a customer's own numbers replace its plan's together`
    )
  }
  // `--per-month N` travels as given, so the customer service's refusal is what the user reads.
  return perMonth === undefined ? { perMinute, perDay } : { perMinute, perDay, perMonth }
}

function createInput(values: Values): CreateCustomerInput {
  if (values.name === undefined) throw new UsageError('customers create needs --name TEXT')
  if (values.plan === undefined) throw new UsageError('customers create needs --plan <plan id> (animal-store plans list shows them)')
  const limits = ownLimits(values)
  return {
    name: values.name,
    plan: values.plan,
    ...(values['external-id'] === undefined ? {} : { externalId: values['external-id'] }),
    ...(limits === undefined ? {} : { limits })
  }
}

function updateInput(values: Values): UpdateCustomerInput {
  if (values['external-id'] !== undefined && values['no-external-id'] === true)
    throw new UsageError('give either --external-id or --no-external-id, not both')
  const limits = ownLimits(values)
  if (limits !== undefined && values['plan-limits'] === true)
    throw new UsageError("give either --per-minute and --per-day (numbers of its own) or --plan-limits (its plan's), not both")
  const input: UpdateCustomerInput = {}
  if (values.name !== undefined) input.name = values.name
  if (values.plan !== undefined) input.plan = values.plan
  if (values['external-id'] !== undefined) input.externalId = values['external-id']
  if (values['no-external-id'] === true) input.externalId = null
  if (limits !== undefined) input.limits = limits
  if (values['plan-limits'] === true) input.limits = null
  if (Object.keys(input).length === 0)
    throw new UsageError(
      'customers update needs something to change: --name, --plan, --external-id, --no-external-id, --per-minute and --per-day, or --plan-limits'
    )
  return input
}

/** What `customers <command>` asks for; a UsageError when the command line cannot do. */
export function readCommandLine(
  command: string,
  args: string[]
): { json: boolean; id: string; externalId: string | undefined; created?: CreateCustomerInput; changes?: UpdateCustomerInput } {
  const { values, id } = commandFlags(
    {
      group: 'customers',
      command,
      allowed: COMMANDS[command]!,
      idName: command === 'update' || command === 'unban' ? 'customer id' : undefined
    },
    args,
    OPTIONS
  )
  const read = { json: values.json === true, id, externalId: values['external-id'] }
  if (command === 'create') return { ...read, created: createInput(values) }
  if (command === 'update') return { ...read, changes: updateInput(values) }
  return read
}
