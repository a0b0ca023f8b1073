// The usage chart's outcomes, apart from uPlot and the DOM: the legend, the data table, the CSV
// and the plot all take their columns from here, so an outcome added shows in each of them.
import type { UsageBucket } from '@animal-store/contract'
import type { CsvValue } from '../../csv.ts'
import { isoInZone, type Zone } from '../../time.ts'

/** One series per outcome, bottom of the stack first, coloured by the CSS custom properties the legend's swatches use too. */
export const SERIES = [
  { field: 'allowed', label: 'Allowed', color: '--allowed' },
  { field: 'rateLimited', label: 'Rate limited', color: '--rate-limited' },
  { field: 'banned', label: 'Banned', color: '--banned' },
  { field: 'quotaExceeded', label: 'Quota exceeded', color: '--quota-exceeded' }
] as const satisfies readonly { field: keyof Omit<UsageBucket, 'start'>; label: string; color: string }[]

export type Outcome = (typeof SERIES)[number]['field']

export function totalsOf(buckets: readonly UsageBucket[]): Record<Outcome, number> {
  const totals = Object.fromEntries(SERIES.map(({ field }) => [field, 0])) as Record<Outcome, number>
  for (const bucket of buckets) for (const { field } of SERIES) totals[field] += bucket[field]
  return totals
}

/** Whether a bucket holds any request: the data table leaves the others out. */
export const hasRequests = (bucket: UsageBucket): boolean => SERIES.some(({ field }) => bucket[field] > 0)

/** The chart's buckets as "Export CSV" writes them: the start in the zone chosen, then a column per outcome. */
export function usageCsv(buckets: readonly UsageBucket[], zone: Zone): { header: string[]; rows: CsvValue[][] } {
  return {
    header: ['Start', ...SERIES.map(({ label }) => label)],
    rows: buckets.map((bucket) => [isoInZone(bucket.start, zone), ...SERIES.map(({ field }) => bucket[field])])
  }
}
