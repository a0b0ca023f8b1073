import { EXPORT_FORMATS, EXPORT_GRANULARITIES } from '@animal-store/contract'
import { compose } from '../compose.ts'
import type { Config } from '../config.ts'
import { ApiError } from '../domain/api-error.ts'
import { queryMoment } from '../domain/iso-time.ts'
import { exportLines } from '../domain/usage/export.ts'
import { UsageQueryError } from '../domain/usage/range.ts'
import { commandFlags, subcommand } from './parse-command.ts'
import { UsageError } from './usage-error.ts'

export const USAGE_HELP = `Usage: animal-store usage export --from ISO --to ISO [--granularity hour|day] [--format cloudevents|stripe]

Prints the billing export as GET /admin/v1/usage/export answers it: NDJSON, one line per customer
and period with any count, oldest period first, then by customer id. --from and --to are on
boundaries of the granularity (hour by default); only periods that ended at least 15 seconds ago
are printed, so the same period printed twice is the same bytes. --format cloudevents (the
default): CloudEvents 1.0 for OpenMeter; --format stripe: Stripe meter event bodies, for customers
with an external id only. docs/operations.md "Billing export" shows how to send them.
`

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  granularity: { type: 'string' },
  format: { type: 'string' }
} as const

/** `--name` must be one of `allowed` when given. */
function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`)
}

/** Writes `text` to stdout, waiting while the pipe is full: memory stays one page, whatever the range. */
async function print(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise((drained) => process.stdout.once('drain', drained))
}

export async function usageCommand(config: Config, argv: string[]): Promise<void> {
  const chosen = subcommand('usage', argv, USAGE_HELP, ['export'])
  if (chosen === undefined) return
  const { values } = commandFlags({ group: 'usage', command: chosen.command, allowed: Object.keys(OPTIONS) }, chosen.rest, OPTIONS)
  let lines: AsyncGenerator<string>
  const services = await compose(config, { role: 'cli' })
  try {
    try {
      const input = {
        from: queryMoment('from', values.from),
        to: queryMoment('to', values.to),
        granularity: oneOf('--granularity', values.granularity, EXPORT_GRANULARITIES),
        format: oneOf('--format', values.format, EXPORT_FORMATS)
      }
      lines = exportLines(services.storage.usage, input, services.clock.now(), config.publicBaseUrl)
    } catch (error) {
      if (error instanceof UsageQueryError || error instanceof ApiError) throw new UsageError(error.message.replace(/^(from|to)\b/, '--$1'))
      throw error
    }
    // Keys the previous release made during a rolling upgrade get their customers first: every key counts.
    await services.customers.adoptKeys()
    for await (const text of lines) await print(text)
  } finally {
    await services.close()
  }
}
