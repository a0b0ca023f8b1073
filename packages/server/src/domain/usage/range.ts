import {
  DEFAULT_USAGE_RANGE_MS,
  GRANULARITIES,
  GRANULARITY_MS,
  MAX_USAGE_BUCKETS,
  USAGE_RETENTION_MS,
  type Granularity
} from '@animal-store/contract'
import type { UsageSpan } from '../../storage/usage/types.ts'

/** The input a usage query names, in the operator API's words. */
export type UsageQueryField = 'from' | 'to' | 'granularity' | 'by' | 'limit'

/** A usage query the service refuses: `field` is the input at fault; the message names it as the operator API does. */
export class UsageQueryError extends Error {
  override name = 'UsageQueryError'
  readonly field: UsageQueryField

  constructor(field: UsageQueryField, message: string) {
    super(message)
    this.field = field
  }
}

/** A range of time as asked for, in Unix milliseconds: already parsed, not yet checked. */
export interface UsageRangeInput {
  /** Inclusive; 24 hours before `to` when undefined. */
  from?: number | undefined
  /** Exclusive; now when undefined. */
  to?: number | undefined
  /** The bucket size; chosen by the rule of `usageRange` when undefined. */
  granularity?: Granularity | undefined
}

/** The buckets an answer holds: `from` and `to` are bucket starts of `granularity`. */
export interface UsageRange extends UsageSpan {
  buckets: number
}

const DAY_MS = 86_400_000
const floorTo = (ms: number, granularity: Granularity) =>
  ms - (((ms % GRANULARITY_MS[granularity]) + GRANULARITY_MS[granularity]) % GRANULARITY_MS[granularity])
const ceilTo = (ms: number, granularity: Granularity) => -floorTo(-ms, granularity)
const kept = (granularity: Granularity) => {
  const ms = USAGE_RETENTION_MS[granularity]
  return ms < 7 * DAY_MS ? `${ms / 3_600_000} hours` : `${ms / DAY_MS} days`
}

/**
 * The oldest bucket start of the granularity kept at `now`: the current bucket's start less the
 * retention. Pruning deletes the buckets that start before it; a query may start at it.
 */
export function keptSince(granularity: Granularity, now: number): number {
  return floorTo(now, granularity) - USAGE_RETENTION_MS[granularity]
}

/** The bucket starts of every bucket that overlaps [from, to): `from` aligned down, `to` up. */
function aligned(granularity: Granularity, from: number, to: number): UsageRange {
  const start = floorTo(from, granularity)
  const end = ceilTo(to, granularity)
  return { granularity, from: start, to: end, buckets: (end - start) / GRANULARITY_MS[granularity] }
}

function time(value: number | undefined, field: 'from' | 'to'): number | undefined {
  // Date's own range: beyond it no ISO string can name the moment.
  if (value !== undefined && !(Number.isSafeInteger(value) && Math.abs(value) <= 8.64e15)) {
    throw new UsageQueryError(field, `${field} must be an ISO 8601 date-time, e.g. 2026-11-27T10:15:00Z`)
  }
  return value
}

/** `from` and `to` with their defaults, checked; `kept` lists the granularities whose retention reaches `from`, finest first. */
function times(input: UsageRangeInput, now: number): { from: number; to: number; kept: Granularity[] } {
  const to = time(input.to, 'to') ?? now
  const from = time(input.from, 'from') ?? to - DEFAULT_USAGE_RANGE_MS
  const fromWords = input.from === undefined ? 'from (24 hours before to when omitted)' : 'from'
  if (from >= to) throw new UsageQueryError('from', `${fromWords} must be before to${input.to === undefined ? ' (now when omitted)' : ''}`)
  const reaching = GRANULARITIES.filter((granularity) => from >= keptSince(granularity, now))
  const chosen = input.granularity
  if (chosen !== undefined && !GRANULARITIES.includes(chosen)) {
    throw new UsageQueryError('granularity', `granularity must be one of ${GRANULARITIES.join(', ')}`)
  }
  if (chosen !== undefined && !reaching.includes(chosen)) {
    const others = reaching.length === 0 ? '' : `; ${reaching.join(' or ')} reaches further back`
    throw new UsageQueryError('from', `${fromWords} must be within the last ${kept(chosen)} for ${chosen} buckets, kept that long${others}`)
  }
  if (reaching.length === 0) {
    const retention = GRANULARITIES.map((granularity) => `by ${granularity} ${kept(granularity)}`).join(', ')
    throw new UsageQueryError('from', `${fromWords} must be within the last ${kept('day')}: usage is kept ${retention}`)
  }
  return { from, to, kept: reaching }
}

/**
 * The buckets that answer a usage query at `now`. `to` defaults to now, `from` to 24 hours
 * before `to`; from must be before to. Every bucket that overlaps [from, to) is answered: `from`
 * is aligned down to its bucket's start and `to` up to the end of its bucket (so the current,
 * partial bucket is in the default answer). A granularity reaches `from` when its bucket
 * holding `from` is still kept (`keptSince`). Without a granularity the answer uses the finest
 * one that reaches `from` and needs at most 3,000 buckets; with one that does not reach `from`,
 * the query is refused rather than answered with zeros for what was pruned. More than 3,000
 * buckets is refused too.
 */
export function usageRange(input: UsageRangeInput, now: number): UsageRange {
  const { from, to, kept: reaching } = times(input, now)
  const candidates = input.granularity === undefined ? reaching : [input.granularity]
  const ranges = candidates.map((granularity) => aligned(granularity, from, to))
  const fitting = ranges.find((range) => range.buckets <= MAX_USAGE_BUCKETS)
  if (fitting !== undefined) return fitting
  const last = ranges.at(-1)!
  const coarser = last.granularity === 'day' ? '' : ' or choose a coarser granularity'
  throw new UsageQueryError(
    'to',
    `from and to span ${last.buckets} ${last.granularity} buckets; at most ${MAX_USAGE_BUCKETS} are answered: bring to closer to from${coarser}`
  )
}

/**
 * The range a top-keys query sums over: every minute (or, where minutes are no longer kept,
 * hour or day) that overlaps [from, to), as non-overlapping spans of the coarsest buckets that
 * fit inside it, with finer ones at its edges, so the sum reads few rows. Exact, since every
 * hour and day holds the sum of its minutes. Same defaults and refusals as `usageRange`, without
 * the limit on buckets.
 */
export function topKeysSpans(input: Omit<UsageRangeInput, 'granularity'>, now: number): UsageSpan[] {
  const { from, to, kept: reaching } = times(input, now)
  const { granularity, from: start, to: end } = aligned(reaching[0]!, from, to)
  return covering({ granularity, from: start, to: end })
}

function covering(span: UsageSpan): UsageSpan[] {
  const coarser = GRANULARITIES[GRANULARITIES.indexOf(span.granularity) + 1]
  if (coarser === undefined) return [span]
  const inner = { granularity: coarser, from: ceilTo(span.from, coarser), to: floorTo(span.to, coarser) }
  if (inner.from >= inner.to) return [span]
  const edge = (from: number, to: number) => (from < to ? [{ granularity: span.granularity, from, to }] : [])
  return [...edge(span.from, inner.from), ...covering(inner), ...edge(inner.to, span.to)]
}
