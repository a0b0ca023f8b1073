import type { Granularity } from '@animal-store/contract'

/** Requests by outcome: the four figures every usage row holds. */
export interface UsageCounts {
  /** Passed the rate limiter, whatever the route then answered. */
  allowed: number
  /** Refused `429 rate_limited`. */
  rateLimited: number
  /** Refused `429 api_key_banned`. */
  banned: number
  /** Refused `429 quota_exceeded`: the customer's monthly quota was spent. */
  quotaExceeded: number
}

/** What one instance counted for one key in one UTC minute since its last flush. */
export interface UsageDelta extends UsageCounts {
  keyId: string
  /** Unix milliseconds, a whole minute. */
  minuteStart: number
}

/** One stored bucket: a minute, hour or day starting at `start` (Unix milliseconds, UTC). */
export interface UsageRow extends UsageCounts {
  start: number
}

/** A key's requests summed over a range. */
export interface KeyUsageTotal extends UsageCounts {
  keyId: string
}

/** A customer's requests (all its keys') summed over a range. */
export interface CustomerUsageTotal extends UsageCounts {
  customerId: string
}

/** One customer's requests (all its keys') in one bucket, with what a bill names it by. */
export interface CustomerPeriod extends UsageCounts {
  /** The bucket's start, Unix milliseconds. */
  start: number
  customerId: string
  externalId: string | null
  plan: string
}

/** Where a page of customer periods starts: after this bucket and customer. */
export interface PeriodCursor {
  start: number
  customerId: string
}

/** The buckets of one granularity that start in [from, to). */
export interface UsageSpan {
  granularity: Granularity
  from: number
  to: number
}

/** What `topKeys` orders by: allowed requests, or refused ones (rate limited, banned and quota exceeded together). */
export type TopKeysOrder = 'allowed' | 'refused'

/**
 * Usage history: per key and in total, by minute, hour and day. Every instance adds its own
 * counts, so several instances sharing a database never overwrite one another.
 */
export interface UsageStore {
  /**
   * In one transaction adds each delta to its key's minute, hour and day rows and to the totals
   * of every key, and raises each key's last use to its latest minute; deltas may repeat a key
   * and minute. Safe from any number of instances at once.
   */
  add(deltas: readonly UsageDelta[]): Promise<void>
  /** The key's non-empty buckets of the span, oldest first; one index range scan. */
  keyBuckets(keyId: string, span: UsageSpan): Promise<UsageRow[]>
  /** The buckets of the span of all the customer's keys summed, non-empty ones only, oldest first. */
  customerBuckets(customerId: string, span: UsageSpan): Promise<UsageRow[]>
  /** Every key's buckets of the span summed, non-empty ones only, oldest first; one index range scan. */
  totalBuckets(span: UsageSpan): Promise<UsageRow[]>
  /**
   * Each key's counts summed over the spans (which must not overlap), at most `limit` keys, the
   * most by `order` first and ties by key id (bytewise); keys with none by `order` left out.
   */
  topKeys(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<KeyUsageTotal[]>
  /** As `topKeys`, each customer's keys summed (keys without a customer left out); ties by customer id. */
  topCustomers(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<CustomerUsageTotal[]>
  /**
   * At most `limit` customers' buckets of the span with any count, by start then customer id
   * (bytewise), after `after` when given: one page of a billing export. Keys without a customer
   * are left out (adopt them first).
   */
  customerPeriods(span: UsageSpan, after: PeriodCursor | undefined, limit: number): Promise<CustomerPeriod[]>
  /** The start of the last minute each of the keys was counted in; keys never counted are absent. Kept forever. */
  lastUsed(keyIds: readonly string[]): Promise<Map<string, number>>
  /** Deletes at most `limit` key rows and `limit` total rows of the granularity that start before `before`; returns how many. */
  prune(granularity: Granularity, before: number, limit: number): Promise<number>
}
