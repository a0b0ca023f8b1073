import {
  CLOUDEVENT_TYPE,
  EXPORT_FORMATS,
  EXPORT_GRANULARITIES,
  EXPORT_SETTLE_MS,
  GRANULARITY_MS,
  STRIPE_EVENT_NAME
} from '@animal-store/contract'
import type { CustomerPeriod, PeriodCursor, UsageStore } from '../../storage/usage/types.ts'
import { UsageQueryError } from './range.ts'

/** What an export is asked for, already parsed (Unix milliseconds). */
export interface ExportInput {
  from: number | undefined
  to: number | undefined
  granularity?: (typeof EXPORT_GRANULARITIES)[number] | undefined
  format?: (typeof EXPORT_FORMATS)[number] | undefined
}

/** Lines per page read from the store: memory holds one page, whatever the range. */
const PAGE_LINES = 1000
/** Periods one page query may span: each query aggregates a bounded slice of the history. */
const PERIODS_PER_QUERY = 24

const iso = (ms: number) => new Date(ms).toISOString()

/** The range checked: both given, on boundaries of the granularity, `from` before `to`. */
function checked(input: ExportInput): { from: number; to: number; granularity: 'hour' | 'day'; format: 'cloudevents' | 'stripe' } {
  const granularity = input.granularity ?? 'hour'
  const format = input.format ?? 'cloudevents'
  const size = GRANULARITY_MS[granularity]
  for (const field of ['from', 'to'] as const) {
    const at = input[field]
    if (at === undefined) throw new UsageQueryError(field, `${field} is required: the export covers [from, to)`)
    if (at % size !== 0) throw new UsageQueryError(field, `${field} must be on a boundary of the ${granularity} (got ${iso(at)})`)
  }
  if (input.from! >= input.to!) throw new UsageQueryError('from', 'from must be before to')
  return { from: input.from!, to: input.to!, granularity, format }
}

/** One line of the export, or undefined when the format leaves the period out (Stripe: no externalId). */
function line(period: CustomerPeriod, granularity: 'hour' | 'day', format: 'cloudevents' | 'stripe', source: string): string | undefined {
  const end = period.start + GRANULARITY_MS[granularity]
  const id = `${period.customerId}/${granularity}/${iso(period.start)}`
  if (format === 'stripe') {
    if (period.externalId === null) return undefined
    const payload = { stripe_customer_id: period.externalId, value: String(period.allowed) }
    return JSON.stringify({ event_name: STRIPE_EVENT_NAME, timestamp: end / 1000, identifier: id, payload })
  }
  const { customerId, externalId, plan, allowed, rateLimited, banned, quotaExceeded } = period
  return JSON.stringify({
    specversion: '1.0',
    type: CLOUDEVENT_TYPE,
    source,
    id,
    subject: externalId ?? customerId,
    time: iso(end),
    datacontenttype: 'application/json',
    data: { customerId, externalId, plan, from: iso(period.start), to: iso(end), allowed, rateLimited, banned, quotaExceeded }
  })
}

/**
 * The billing export of `input` at `now`, line by line (each ending in a newline), read from the
 * store a page at a time: only periods that ended EXPORT_SETTLE_MS before `now`, oldest first,
 * then by customer id, so the same period gives the same bytes every time. `source` is the
 * CloudEvents source (PUBLIC_BASE_URL). Throws UsageQueryError before the first line for bad input.
 */
export function exportLines(
  store: Pick<UsageStore, 'customerPeriods'>,
  input: ExportInput,
  now: number,
  source: string
): AsyncGenerator<string> {
  const { from, to, granularity, format } = checked(input)
  const size = GRANULARITY_MS[granularity]
  const closedBefore = Math.min(to, Math.floor((now - EXPORT_SETTLE_MS) / size) * size)
  return (async function* () {
    for (let sliceFrom = from; sliceFrom < closedBefore; sliceFrom += PERIODS_PER_QUERY * size) {
      const span = { granularity, from: sliceFrom, to: Math.min(closedBefore, sliceFrom + PERIODS_PER_QUERY * size) }
      let after: PeriodCursor | undefined
      for (;;) {
        const page = await store.customerPeriods(span, after, PAGE_LINES)
        let text = ''
        for (const period of page) {
          const written = line(period, granularity, format, source)
          if (written !== undefined) text += `${written}\n`
        }
        if (text !== '') yield text
        if (page.length < PAGE_LINES) break
        const last = page.at(-1)!
        after = { start: last.start, customerId: last.customerId }
      }
    }
  })()
}
