import { compose } from '../../compose.ts'
import type { Config } from '../../config.ts'
import { PlanExistsError, PlanInputError, PlanInUseError, PlanNotFoundError, type PlanTerm } from '../../domain/plans/errors.ts'
import { osUser } from '../os-user.ts'
import { subcommand } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'
import { COMMANDS, readCommandLine, updateInput } from './input.ts'
import { limitsText, table } from './table.ts'

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
         within 5 seconds, counts already taken kept. A plan with limits keeps those of
         --per-minute, --per-day and --per-month not given; --no-monthly-quota removes its monthly
         quota; --custom drops its limits (refused while customers on it carry no numbers of their own).
  delete <id>        Deletes a plan no customer is on.

--per-month N: a monthly quota, the requests allowed per UTC calendar month (1 to 1000000000000),
shared by the customers on the plan that carry no numbers of their own; without it, none.
Every change is in the audit log.
Bad input, an unknown plan id, an id in use, or a plan in use exits with code 2 and changes nothing.
`

/** The flag (or words) that set each term the plan service names in its messages, in `command`. */
const flags = (command: string): Record<PlanTerm, string> => ({
  id: 'the plan id',
  name: '--name',
  limits: '--per-minute and --per-day (or --custom)',
  perMinute: '--per-minute',
  perDay: '--per-day',
  perMonth: '--per-month',
  // Only update takes the flag: a plan created without --per-month has none.
  noMonthlyQuota: command === 'update' ? '--no-monthly-quota' : 'left out'
})

/** The plan service's refusals as usage errors (one line, exit 2), naming flags where it names fields. */
function asUsageError(error: unknown, command: string): unknown {
  if (error instanceof PlanInputError) return new UsageError(error.describe((term) => flags(command)[term]))
  if (error instanceof PlanNotFoundError || error instanceof PlanExistsError || error instanceof PlanInUseError)
    return new UsageError(error.message)
  return error
}

export async function plansCommand(config: Config, argv: string[]): Promise<void> {
  const asked = subcommand('plans', argv, PLANS_HELP, Object.keys(COMMANDS))
  if (asked === undefined) return
  const { command, rest } = asked
  const { values, id, created } = readCommandLine(command, rest)

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
    throw asUsageError(error, command)
  } finally {
    await services.close()
  }
}
