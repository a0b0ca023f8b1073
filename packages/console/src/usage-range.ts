import type { Granularity, UsageQuery } from '@animal-store/contract'

// Each range picks the finest granularity the API keeps for all of it, in at most 3,000 buckets:
// minutes (kept 48 h) for an hour and a day, hours (kept 90 days) for a week and a month.
const STEP_MS = { minute: 60_000, hour: 3_600_000 } satisfies Partial<Record<Granularity, number>>

export const RANGES = [
  { label: '1 hour', ms: 3_600_000, granularity: 'minute' },
  { label: '24 hours', ms: 86_400_000, granularity: 'minute' },
  { label: '7 days', ms: 7 * 86_400_000, granularity: 'hour' },
  { label: '30 days', ms: 30 * 86_400_000, granularity: 'hour' }
] as const satisfies readonly { label: string; ms: number; granularity: keyof typeof STEP_MS }[]

export type UsageRange = (typeof RANGES)[number]
export const DEFAULT_RANGE: UsageRange = RANGES[1]

/** The query of a range ending with the bucket that holds `now`, so the current minute or hour is in view. */
export function rangeQuery(range: UsageRange, now: number): Required<UsageQuery> {
  const step = STEP_MS[range.granularity]
  const to = Math.floor(now / step) * step + step
  return { from: new Date(to - range.ms).toISOString(), to: new Date(to).toISOString(), granularity: range.granularity }
}

/** The range's bounds alone (the top keys take no granularity). */
export function rangeBounds(range: UsageRange, now: number): { from: string; to: string } {
  const { from, to } = rangeQuery(range, now)
  return { from, to }
}
