import { compose } from '../../compose.ts'
import type { Config } from '../../config.ts'
import { CustomerExistsError, CustomerInputError, CustomerNotFoundError, type CustomerTerm } from '../../domain/customers/errors.ts'
import { osUser } from '../os-user.ts'
import { subcommand } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'
import { COMMANDS, readCommandLine, withOwnLimits } from './input.ts'
import { allCustomers, customerText, table } from './table.ts'

export const CUSTOMERS_HELP = `Usage: animal-store customers <command> [options]

A customer holds keys (production, staging, a CI job): its limits, their windows and any ban are
shared by all its keys. Give it a key with animal-store keys create --customer <id>.

Commands:
  list [--json]      Lists every customer, newest first: limits in force, their use, how many keys
                     (not revoked), and any ban.
  create --name TEXT --plan P [--external-id X] [--per-minute N --per-day N [--per-month N]] [--json]
         Creates a customer and prints its id. --plan: a plan id (animal-store plans list).
         --external-id: your own id for it (e.g. in billing), unique among customers.
         --per-minute and --per-day: numbers of its own instead of its plan's; required on a custom
         plan (enterprise). --per-month: a monthly quota of its own with them; without it, none.
  update <id> [--name TEXT] [--plan P] [--external-id X | --no-external-id]
         [--per-minute N --per-day N] [--per-month N | --no-monthly-quota] [--plan-limits] [--json]
         Changes a customer in place; all its keys run under the change on every instance within
         5 seconds, counts already taken and any ban kept. A new --plan drops numbers of its own
         (and its monthly quota) unless given again. --plan-limits drops them: its plan's numbers
         and monthly quota apply. --per-month or --no-monthly-quota alone changes the monthly
         quota of a customer with numbers of its own; numbers alone keep it. --no-external-id
         removes the external id.
  unban <id>         Lifts the ban of all the customer's keys, if any.

--per-month N: requests allowed per UTC calendar month, 1 to 1000000000000. A customer with
numbers of its own has its own monthly quota (or none); one without has its plan's.
Every change is in the audit log. Bad input, an unknown customer id or an external id in use
exits with code 2 and changes nothing.
`

/** The flag (or words) that set each term the customer service names in its messages, in `command`. */
const flags = (command: string): Record<CustomerTerm, string> => ({
  name: '--name',
  plan: '--plan',
  externalId: '--external-id',
  limits: '--per-minute and --per-day',
  perMinute: '--per-minute',
  perDay: '--per-day',
  perMonth: '--per-month',
  // Only update takes the flag: a customer created without --per-month has none.
  noMonthlyQuota: command === 'update' ? '--no-monthly-quota' : 'left out'
})

/** The customer service's refusals as usage errors (one line, exit 2), naming flags where it names fields. */
function asUsageError(error: unknown, command: string, externalId: string | undefined): unknown {
  if (error instanceof CustomerInputError) return new UsageError(error.describe((term) => flags(command)[term]))
  // Its message names the API's field; the command line knows the flag and the value given.
  if (error instanceof CustomerExistsError && externalId !== undefined)
    return new UsageError(`another customer has --external-id ${JSON.stringify(externalId)}: an external id names one customer`)
  if (error instanceof CustomerNotFoundError || error instanceof CustomerExistsError) return new UsageError(error.message)
  return error
}

export async function customersCommand(config: Config, argv: string[]): Promise<void> {
  const asked = subcommand('customers', argv, CUSTOMERS_HELP, Object.keys(COMMANDS))
  if (asked === undefined) return
  const { command, rest } = asked
  const { json, id, externalId, created, changes, partLimits } = readCommandLine(command, rest)

  const services = await compose(config, { role: 'cli' })
  const customers = services.customers
  const actor = osUser()
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  try {
    switch (command) {
      case 'list': {
        const list = await allCustomers(services)
        if (json) print(list)
        else process.stdout.write(list.length === 0 ? 'No customers.\n' : `${table(list)}\n`)
        return
      }
      case 'create': {
        const { customer } = await customers.create(created!, actor)
        if (json) print(customer)
        else process.stdout.write(`Created customer ${customer.id} (${customerText(customer)}).\n`)
        return
      }
      case 'update': {
        const { customer } = await customers.update(id, await withOwnLimits(changes!, partLimits, customers, id), actor)
        if (json) print(customer)
        else
          process.stdout.write(`Updated customer ${customer.id} (${customerText(customer)}); every instance applies it within 5 seconds.\n`)
        return
      }
      case 'unban':
        await customers.unban(id, actor)
        process.stdout.write(`Lifted any ban on customer ${id} and all its keys; serving instances apply it within a second.\n`)
    }
  } catch (error) {
    throw asUsageError(error, command, externalId)
  } finally {
    await services.close()
  }
}
