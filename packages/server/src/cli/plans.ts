import { parseArgs } from 'node:util'
import { compose } from '../compose.ts'
import type { Config } from '../config.ts'
import type { PlanLimitsInput, UpdatePlanInput } from '../domain/plans/changes.ts'
import { PlanExistsError, PlanInputError, PlanInUseError, PlanNotFoundError, type PlanField } from '../domain/plans/errors.ts'
import type { PlanService } from '../domain/plans/service.ts'
import { osUser } from './os-user.ts'
import { limitsText, table } from './plans-table.ts'
import { subcommand } from './parse-command.ts'
import { UsageError } from './usage-error.ts'

export const PLANS_HELP = `Usage: animal-store plans <command> [options]

Plans are data: each has an id (a slug that never changes), a name and limits every customer on
it shares, or none (a custom plan: each customer on it carries its own). A new database has free,
pro, business and enterprise (custom).

Commands:
  list [--json]      Lists every plan, by id, with how many customers are on it.
  create <id> --name TEXT (--per-minute N --per-day N [--per-month N] | --custom) [--json]
         Creates a plan. <id>: 1 to 32 lower-case letters, digits and hyphens, starting with a letter.
  update <id> [--name TEXT] [--per-minute N] [--per-day N] [--per-month N | --no-monthly-quota] [--custom] [--json]
         Changes a plan in place; every customer on it runs under the new limits on every instance
         within 5 seconds, counts already taken kept. A plan with limits keeps the one of
         --per-minute and --per-day not given; --custom drops its limits (refused while keys on it
         carry no numbers of their own).
  delete <id>        Deletes a plan no customer is on.

Monthly quotas are not available in this release: --per-month is refused; a plan has no monthly
quota (--no-monthly-quota). Every change is in the audit log.
Bad input, an unknown plan id, an id in use, or a plan in use exits with code 2 and changes nothing.
`

const COMMANDS: Record<string, string[]> = {
  list: ['json'],
  create: ['name', 'per-minute', 'per-day', 'per-month', 'custom', 'json'],
  update: ['name', 'per-minute', 'per-day', 'per-month', 'no-monthly-quota', 'custom', 'json'],
  delete: []
}

/** The flag (or word) that sets each field the plan service names in its messages. */
const FLAGS: Record<PlanField, string> = {
  id: 'the plan id',
  name: '--name',
  limits: '--per-minute and --per-day (or --custom)',
  perMinute: '--per-minute',
  perDay: '--per-day',
  perMonth: '--per-month'
}

/** The plan service's refusals as usage errors (one line, exit 2), naming flags where it names fields. */
function asUsageError(error: unknown): unknown {
  if (error instanceof PlanInputError) {
    const text = error.describe((field) => FLAGS[field])
    // "--per-month must be null: <why>" reads oddly for a flag that takes a number: say the flag is refused, and why.
    const why = error.field === 'perMonth' ? text.split(': ').slice(1).join(': ') : ''
    return new UsageError(why === '' ? text : `--per-month is refused: ${why}`)
  }
  if (error instanceof PlanNotFoundError || error instanceof PlanExistsError || error instanceof PlanInUseError)
    return new UsageError(error.message)
  return error
}

/** A flag's digits as a number; the plan service judges the number. */
function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`${flag} must be a whole number (got ${JSON.stringify(value)})`)
  return Number(value)
}

interface Values {
  name?: string | undefined
  'per-minute'?: string | undefined
  'per-day'?: string | undefined
  'per-month'?: string | undefined
  'no-monthly-quota'?: boolean | undefined
  custom?: boolean | undefined
  json?: boolean | undefined
}

function parse(command: string, args: string[]): { values: Values; id: string } {
  let parsed
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        'per-month': { type: 'string' },
        'no-monthly-quota': { type: 'boolean' },
        custom: { type: 'boolean' },
        json: { type: 'boolean' }
      }
    })
  } catch (error) {
    throw new UsageError(`plans ${command}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`)
  }
  const { values, positionals } = parsed
  const extra = Object.keys(values).filter((flag) => !COMMANDS[command]!.includes(flag))
  if (extra.length > 0) throw new UsageError(`plans ${command} does not take --${extra.join(', --')}`)
  const wantsId = command !== 'list'
  if (positionals.length !== (wantsId ? 1 : 0))
    throw new UsageError(
      wantsId
        ? `plans ${command} takes exactly one plan id`
        : `plans ${command} takes no positional arguments (got ${positionals.join(' ')})`
    )
  return { values, id: positionals[0] ?? '' }
}

/** The limit flags given, as numbers; `perMonth` null for --no-monthly-quota. */
function limitFlags(values: Values): { perMinute?: number; perDay?: number; perMonth?: number | null; given: string[] } {
  if (values['per-month'] !== undefined && values['no-monthly-quota'] === true)
    throw new UsageError('give either --per-month or --no-monthly-quota, not both')
  const perMinute = number('--per-minute', values['per-minute'])
  const perDay = number('--per-day', values['per-day'])
  const perMonth = values['no-monthly-quota'] === true ? null : number('--per-month', values['per-month'])
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

/** `--per-month N` travels as given, so the plan service's refusal is what the user reads. */
function limitsInput(perMinute: number, perDay: number, perMonth: number | null | undefined): PlanLimitsInput {
  return perMonth === undefined ? { perMinute, perDay } : { perMinute, perDay, perMonth }
}

/** The update `values` ask for; partial limits are completed from the plan as it is (read only then). */
async function updateInput(plans: PlanService, id: string, values: Values): Promise<UpdatePlanInput> {
  const { perMinute, perDay, perMonth, given } = limitFlags(values)
  const input: UpdatePlanInput = {}
  if (values.name !== undefined) input.name = values.name
  if (values.custom === true) input.limits = null
  else if (given.length > 0) {
    if (perMinute !== undefined && perDay !== undefined) input.limits = limitsInput(perMinute, perDay, perMonth)
    else {
      const { limits } = await plans.get(id)
      const missing = [perMinute === undefined ? '--per-minute' : [], perDay === undefined ? '--per-day' : []].flat()
      if (limits === null)
        throw new UsageError(
          `plan ${JSON.stringify(id)} is custom (no limits of its own): give it limits with ${missing.join(' and ')} too`
        )
      input.limits = limitsInput(perMinute ?? limits.perMinute, perDay ?? limits.perDay, perMonth)
    }
  }
  return input
}

export async function plansCommand(config: Config, argv: string[]): Promise<void> {
  const asked = subcommand('plans', argv, PLANS_HELP, Object.keys(COMMANDS))
  if (asked === undefined) return
  const { command, rest } = asked
  const { values, id } = parse(command, rest)
  // Everything the command line alone can tell is checked before the database is opened.
  let created: { name: string; limits: PlanLimitsInput | null } | undefined
  if (command === 'create') {
    const { perMinute, perDay, perMonth } = limitFlags(values)
    if (values.name === undefined) throw new UsageError('plans create needs --name TEXT')
    if (values.custom === true) created = { name: values.name, limits: null }
    else if (perMinute === undefined || perDay === undefined)
      throw new UsageError(
        'plans create needs --per-minute N and --per-day N, or --custom for a plan whose customers carry their own limits'
      )
    else created = { name: values.name, limits: limitsInput(perMinute, perDay, perMonth) }
  }
  if (command === 'update') {
    limitFlags(values)
    if (Object.keys(values).every((flag) => flag === 'json'))
      throw new UsageError(
        'plans update needs something to change: --name, --per-minute, --per-day, --per-month, --no-monthly-quota or --custom'
      )
  }

  const services = await compose(config, { role: 'cli' })
  const plans = services.plans
  const actor = osUser()
  const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  try {
    switch (command) {
      case 'list': {
        const list = await plans.list()
        if (values.json === true) json(list)
        else process.stdout.write(list.length === 0 ? 'No plans.\n' : `${table(list)}\n`)
        return
      }
      case 'create': {
        const { plan } = await plans.create({ id, ...created! }, actor)
        if (values.json === true) json(plan)
        else process.stdout.write(`Created plan ${plan.id} (${plan.name}; ${limitsText(plan)}).\n`)
        return
      }
      case 'update': {
        const { plan } = await plans.update(id, await updateInput(plans, id, values), actor)
        if (values.json === true) json(plan)
        else
          process.stdout.write(`Updated plan ${plan.id} (${plan.name}; ${limitsText(plan)}); every instance applies it within 5 seconds.\n`)
        return
      }
      case 'delete':
        await plans.delete(id, actor)
        process.stdout.write(`Deleted plan ${id}.\n`)
    }
  } catch (error) {
    throw asUsageError(error)
  } finally {
    await services.close()
  }
}
