import type { PlanLimitsInput, UpdatePlanInput } from '../../domain/plans/changes.ts'
import type { PlanService } from '../../domain/plans/service.ts'
import { commandFlags, wholeNumber, type ParsedValues } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'

// What `plans <command>` was given: its flags read and checked as far as the command line alone
// can tell, before the database is opened.

/** Each command and the flags it takes. */
export const COMMANDS: Record<string, string[]> = {
  list: ['json'],
  create: ['name', 'per-minute', 'per-day', 'per-month', 'custom', 'json'],
  update: ['name', 'per-minute', 'per-day', 'per-month', 'no-monthly-quota', 'custom', 'json'],
  delete: []
}

const OPTIONS = {
  name: { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  'per-month': { type: 'string' },
  'no-monthly-quota': { type: 'boolean' },
  custom: { type: 'boolean' },
  json: { type: 'boolean' }
} as const

type Values = ParsedValues<typeof OPTIONS>

/** The limit flags given, as numbers; `perMonth` null for --no-monthly-quota. */
function limitFlags(values: Values): { perMinute?: number; perDay?: number; perMonth?: number | null; given: string[] } {
  if (values['per-month'] !== undefined && values['no-monthly-quota'] === true)
    throw new UsageError('give either --per-month or --no-monthly-quota, not both')
  const perMinute = wholeNumber('--per-minute', values['per-minute'])
  const perDay = wholeNumber('--per-day', values['per-day'])
  const perMonth = values['no-monthly-quota'] === true ? null : wholeNumber('--per-month', values['per-month'])
  const given = (['per-minute', 'per-day', 'per-month', 'no-monthly-quota'] as const).filter((flag) => values[flag] !== undefined)
  if (values.custom === true && given.length > 0)
    throw new UsageError(`--custom takes no --${given.join(', --')}: the customers on a custom plan each carry their own limits`)
  return {
    ...(perMinute === undefined ? {} : { perMinute }),
    ...(perDay === undefined ? {} : { perDay }),
    ...(perMonth === undefined ? {} : { perMonth }),
    given: given.map((flag) => `--${flag}`)
  }
}

/**
 * The update `values` ask for. Limits are set as a whole, so those not given are completed from
 * the plan as it is (read only then): a plan keeps its monthly quota unless told otherwise.
 */
export async function updateInput(plans: PlanService, id: string, values: Values): Promise<UpdatePlanInput> {
  const { perMinute, perDay, perMonth, given } = limitFlags(values)
  const input: UpdatePlanInput = {}
  if (values.name !== undefined) input.name = values.name
  if (values.custom === true) input.limits = null
  else if (given.length > 0) {
    const complete = perMinute !== undefined && perDay !== undefined && perMonth !== undefined
    const current = complete ? undefined : (await plans.get(id)).limits
    const missing = [perMinute === undefined ? '--per-minute' : [], perDay === undefined ? '--per-day' : []].flat()
    if (current === null && missing.length > 0)
      throw new UsageError(`plan ${JSON.stringify(id)} is custom (no limits of its own): give it limits with ${missing.join(' and ')} too`)
    // `current!` is reached only for a number not given: then the plan was read, and has limits.
    input.limits = {
      perMinute: perMinute ?? current!.perMinute,
      perDay: perDay ?? current!.perDay,
      perMonth: perMonth === undefined ? (current?.perMonth ?? null) : perMonth
    }
  }
  return input
}

/** The flags and id of `plans <command>`, and for `create` the plan's name and limits; a UsageError when they cannot do. */
export function readCommandLine(
  command: string,
  args: string[]
): { values: Values; id: string; created: { name: string; limits: PlanLimitsInput | null } | undefined } {
  const { values, id } = commandFlags(
    { group: 'plans', command, allowed: COMMANDS[command]!, idName: command === 'list' ? undefined : 'plan id' },
    args,
    OPTIONS
  )
  let created: { name: string; limits: PlanLimitsInput | null } | undefined
  if (command === 'create') {
    const { perMinute, perDay, perMonth } = limitFlags(values)
    if (values.name === undefined) throw new UsageError('plans create needs --name TEXT')
    if (values.custom === true) created = { name: values.name, limits: null }
    else if (perMinute === undefined || perDay === undefined)
      throw new UsageError(
        'plans create needs --per-minute N and --per-day N, or --custom for a plan whose customers carry their own limits'
      )
    else created = { name: values.name, limits: { perMinute, perDay, perMonth: perMonth ?? null } }
  }
  if (command === 'update') {
    limitFlags(values)
    if (Object.keys(values).every((flag) => flag === 'json'))
      throw new UsageError(
        'plans update needs something to change: --name, --per-minute, --per-day, --per-month, --no-monthly-quota or --custom'
      )
  }
  return { values, id, created }
}
