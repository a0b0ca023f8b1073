import type { CreateCustomerInput, UpdateCustomerInput } from '../../domain/customers/changes.ts'
import type { CustomerService } from '../../domain/customers/service.ts'
import { commandFlags, wholeNumber, type ParsedValues } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'

// What `customers <command>` was given: its flags read and checked as far as the command line
// alone can tell, before the database is opened. The customer service judges the values.

/** Each command and the flags it takes. */
export const COMMANDS: Record<string, readonly string[]> = {
  list: ['json'],
  create: ['name', 'plan', 'external-id', 'per-minute', 'per-day', 'per-month', 'json'],
  update: [
    'name',
    'plan',
    'external-id',
    'no-external-id',
    'per-minute',
    'per-day',
    'per-month',
    'no-monthly-quota',
    'plan-limits',
    'json'
  ],
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
  'no-monthly-quota': { type: 'boolean' },
  'plan-limits': { type: 'boolean' },
  json: { type: 'boolean' }
} as const

type Values = ParsedValues<typeof OPTIONS>

/** Own limits `customers update` asks for with one part left as the customer has it (undefined): limits are set as a whole. */
export interface PartLimits {
  numbers: { perMinute: number; perDay: number } | undefined
  perMonth: number | null | undefined
}

/** The monthly quota flags: a number, null for --no-monthly-quota, undefined for neither. */
function quotaFlag(values: Values): number | null | undefined {
  if (values['per-month'] !== undefined && values['no-monthly-quota'] === true)
    throw new UsageError('give either --per-month or --no-monthly-quota, not both')
  return values['no-monthly-quota'] === true ? null : wholeNumber('--per-month', values['per-month'])
}

/** The customer's own numbers the flags give, or undefined when neither is given. */
function ownNumbers(values: Values): { perMinute: number; perDay: number } | undefined {
  const perMinute = wholeNumber('--per-minute', values['per-minute'])
  const perDay = wholeNumber('--per-day', values['per-day'])
  if (perMinute === undefined && perDay === undefined) return undefined
  if (perMinute === undefined || perDay === undefined) {
    const given = (['per-minute', 'per-day', 'per-month'] as const).filter((flag) => values[flag] !== undefined)
    const missing = (['per-minute', 'per-day'] as const).filter((flag) => values[flag] === undefined)
    throw new UsageError(
      `--${given.join(' and --')} needs --${missing.join(' and --')} too: a customer's own numbers replace its plan's together`
    )
  }
  return { perMinute, perDay }
}

function createInput(values: Values): CreateCustomerInput {
  if (values.name === undefined) throw new UsageError('customers create needs --name TEXT')
  if (values.plan === undefined) throw new UsageError('customers create needs --plan <plan id> (animal-store plans list shows them)')
  const numbers = ownNumbers(values)
  const perMonth = quotaFlag(values)
  if (numbers === undefined && perMonth !== undefined)
    throw new UsageError('--per-month needs --per-minute and --per-day too: a monthly quota of its own goes with numbers of its own')
  return {
    name: values.name,
    plan: values.plan,
    ...(values['external-id'] === undefined ? {} : { externalId: values['external-id'] }),
    ...(numbers === undefined ? {} : { limits: { ...numbers, perMonth: perMonth ?? null } })
  }
}

/**
 * The update the flags ask for; `partLimits` when they give the numbers without the monthly quota
 * or the quota without the numbers: the rest is the customer's own (`withOwnLimits`, once it is read).
 */
function updateInput(values: Values): { changes: UpdateCustomerInput; partLimits?: PartLimits } {
  if (values['external-id'] !== undefined && values['no-external-id'] === true)
    throw new UsageError('give either --external-id or --no-external-id, not both')
  const numbers = ownNumbers(values)
  const perMonth = quotaFlag(values)
  if ((numbers !== undefined || perMonth !== undefined) && values['plan-limits'] === true)
    throw new UsageError(
      "give either --per-minute and --per-day (numbers of its own, --per-month with them) or --plan-limits (its plan's), not both"
    )
  if (numbers === undefined && perMonth !== undefined && values.plan !== undefined)
    throw new UsageError('--per-month needs --per-minute and --per-day too: a new --plan drops the numbers of its own')
  const changes: UpdateCustomerInput = {}
  if (values.name !== undefined) changes.name = values.name
  if (values.plan !== undefined) changes.plan = values.plan
  if (values['external-id'] !== undefined) changes.externalId = values['external-id']
  if (values['no-external-id'] === true) changes.externalId = null
  if (values['plan-limits'] === true) changes.limits = null
  // Only the numbers, or only the monthly quota: the rest stays the customer's own (read once the
  // database is open). A new plan drops both, so then none is kept.
  const partial = (numbers === undefined) !== (perMonth === undefined) && values.plan === undefined
  if (numbers !== undefined && !partial) changes.limits = { ...numbers, perMonth: perMonth ?? null }
  if (Object.keys(changes).length === 0 && !partial)
    throw new UsageError(
      'customers update needs something to change: --name, --plan, --external-id, --no-external-id, --per-minute and --per-day, ' +
        '--per-month, --no-monthly-quota, or --plan-limits'
    )
  return partial ? { changes, partLimits: { numbers, perMonth } } : { changes }
}

/**
 * `changes` with own limits made of `part` and, for what it leaves out, the customer's own: its
 * monthly quota (none while it has no numbers of its own), or its numbers (refused when it has
 * none: its plan's apply, monthly quota included).
 */
export async function withOwnLimits(
  changes: UpdateCustomerInput,
  part: PartLimits | undefined,
  customers: Pick<CustomerService, 'get'>,
  id: string
): Promise<UpdateCustomerInput> {
  if (part === undefined) return changes
  const customer = await customers.get(id)
  if (part.numbers === undefined && !customer.ownLimits)
    throw new UsageError(
      `customer ${customer.id} runs under the limits of its plan ${customer.plan}, monthly quota included: ` +
        'give --per-minute and --per-day with --per-month, or change the plan (animal-store plans update)'
    )
  const { perMinute, perDay } = part.numbers ?? customer.limits
  const perMonth = part.perMonth !== undefined ? part.perMonth : customer.ownLimits ? customer.limits.perMonth : null
  return { ...changes, limits: { perMinute, perDay, perMonth } }
}

/** What `customers <command>` asks for; a UsageError when the command line cannot do. */
export function readCommandLine(
  command: string,
  args: string[]
): {
  json: boolean
  id: string
  externalId: string | undefined
  created?: CreateCustomerInput
  changes?: UpdateCustomerInput
  partLimits?: PartLimits
} {
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
  if (command === 'update') return { ...read, ...updateInput(values) }
  return read
}
