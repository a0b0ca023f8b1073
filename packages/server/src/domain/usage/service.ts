import { setImmediate as nextMacrotask } from 'node:timers/promises'
import { GRANULARITIES, GRANULARITY_MS, TOP_KEYS_LIMIT_DEFAULT, TOP_KEYS_ORDERS, type UsageBucket } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { CustomerUsageTotal, KeyUsageTotal, TopKeysOrder, UsageRow, UsageStore } from '../../storage/usage/types.ts'
import { exportLines, type ExportInput } from './export.ts'
import { keptSince, topKeysSpans, usageRange, UsageQueryError, type UsageRange, type UsageRangeInput } from './range.ts'
import { countsOf, NO_COUNTS } from '../../storage/usage/counts.ts'

/** What a top-keys query is asked for with, already parsed (Unix milliseconds). */
export interface TopKeysInput {
  from?: number | undefined
  to?: number | undefined
  /** `allowed` (the default) or `refused` (rate limited, banned and quota exceeded together). */
  by?: TopKeysOrder | undefined
  /** 1 to 100; 10 by default. */
  limit?: number | undefined
}

/** The most keys a top-keys answer names, as the operator API allows. */
const TOP_KEYS_LIMIT_MAX = 100
/** Rows per prune statement: each holds the database briefly, and other work runs between two. */
const PRUNE_BATCH_ROWS = 500

/** Every bucket of the range, oldest first, zeros where no row was stored. */
function zeroFilled(range: UsageRange, rows: readonly UsageRow[]): UsageBucket[] {
  const size = GRANULARITY_MS[range.granularity]
  const buckets = new Array<UsageBucket>(range.buckets)
  let next = 0
  for (let i = 0; i < range.buckets; i++) {
    const start = range.from + i * size
    while (next < rows.length && rows[next]!.start < start) next++
    const row = rows[next]?.start === start ? rows[next] : undefined
    buckets[i] = { start: new Date(start).toISOString(), ...(row === undefined ? NO_COUNTS : countsOf(row)) }
  }
  return buckets
}

/**
 * The usage history the operator API reads: buckets of one key or of all, top keys, last use;
 * and its pruning. Every read first stores this instance's counts so far, so an answer holds
 * every request this instance counted before it; other instances' counts arrive within 15 s.
 * Key ids are not checked here: the caller looks the key up.
 */
export class UsageService {
  readonly #store: UsageStore
  readonly #clock: Clock
  readonly #flush: () => Promise<void>
  readonly #pruneBatchRows: number

  constructor(store: UsageStore, clock: Clock, options: { flush: () => Promise<void>; pruneBatchRows?: number | undefined }) {
    this.#store = store
    this.#clock = clock
    this.#flush = options.flush
    this.#pruneBatchRows = options.pruneBatchRows ?? PRUNE_BATCH_ROWS
  }

  /** Stores the counts this instance made so far; never rejects (a failure is logged, its counts kept for the next flush). */
  flush(): Promise<void> {
    return this.#flush()
  }

  /** The key's requests by outcome in every bucket of the range (see `usageRange`); UsageQueryError for a range it refuses. */
  async keyUsage(keyId: string, input: UsageRangeInput = {}): Promise<UsageBucket[]> {
    const range = usageRange(input, this.#clock.now())
    await this.#flush()
    return zeroFilled(range, await this.#store.keyBuckets(keyId, range))
  }

  /** The requests of all the customer's keys summed, in every bucket of the range (see `usageRange`). */
  async customerUsage(customerId: string, input: UsageRangeInput = {}): Promise<UsageBucket[]> {
    const range = usageRange(input, this.#clock.now())
    await this.#flush()
    return zeroFilled(range, await this.#store.customerBuckets(customerId, range))
  }

  /** The billing export of `input` now, line by line (see `exportLines`); `source` names this service. */
  export(input: ExportInput, source: string): AsyncGenerator<string> {
    return exportLines(this.#store, input, this.#clock.now(), source)
  }

  /** Every key's requests summed, in every bucket of the range (see `usageRange`). */
  async allUsage(input: UsageRangeInput = {}): Promise<UsageBucket[]> {
    const range = usageRange(input, this.#clock.now())
    await this.#flush()
    return zeroFilled(range, await this.#store.totalBuckets(range))
  }

  /**
   * The keys with the most requests by `by` over every minute that overlaps [from, to) (see
   * `topKeysSpans`), most first, ties by key id; keys with none by `by` are left out.
   */
  async topKeys(input: TopKeysInput = {}): Promise<KeyUsageTotal[]> {
    const { spans, by, limit } = await this.#top(input)
    return this.#store.topKeys(spans, by, limit)
  }

  /** As `topKeys`, each customer's keys summed. */
  async topCustomers(input: TopKeysInput = {}): Promise<CustomerUsageTotal[]> {
    const { spans, by, limit } = await this.#top(input)
    return this.#store.topCustomers(spans, by, limit)
  }

  /** The checked query of a top-keys or top-customers read, once this instance's counts are stored. */
  async #top(input: TopKeysInput): Promise<{ spans: ReturnType<typeof topKeysSpans>; by: TopKeysOrder; limit: number }> {
    const by = input.by ?? 'allowed'
    const limit = input.limit ?? TOP_KEYS_LIMIT_DEFAULT
    if (!TOP_KEYS_ORDERS.includes(by)) throw new UsageQueryError('by', `by must be one of ${TOP_KEYS_ORDERS.join(', ')}`)
    if (!Number.isInteger(limit) || limit < 1 || limit > TOP_KEYS_LIMIT_MAX) {
      throw new UsageQueryError('limit', `limit must be a whole number from 1 to ${TOP_KEYS_LIMIT_MAX}`)
    }
    const spans = topKeysSpans(input, this.#clock.now())
    await this.#flush()
    return { spans, by, limit }
  }

  /** The start of the last minute each key had a counted request in, as ISO 8601; keys never used are absent. */
  async lastUsedAt(keyIds: readonly string[]): Promise<Map<string, string>> {
    if (keyIds.length === 0) return new Map()
    await this.#flush()
    const minutes = await this.#store.lastUsed(keyIds)
    return new Map([...minutes].map(([keyId, start]) => [keyId, new Date(start).toISOString()]))
  }

  /**
   * Deletes the buckets past their retention (minutes 48 hours, hours 90 days, days 400 days,
   * counted from the current bucket's start) in bounded batches, letting other work run between
   * two; returns how many rows it deleted. Last use is kept.
   */
  async prune(): Promise<number> {
    const now = this.#clock.now()
    let deleted = 0
    for (const granularity of GRANULARITIES) {
      for (;;) {
        const batch = await this.#store.prune(granularity, keptSince(granularity, now), this.#pruneBatchRows)
        if (batch === 0) break
        deleted += batch
        await nextMacrotask()
      }
    }
    return deleted
  }
}
