import type { AuditEntry } from '../audit/types.ts'

/**
 * A customer as stored. Its keys share its limits, windows and ban: the counters of subject
 * `key:<counterId>`. `counterId` is the id of the key it was made from when a release without
 * customers was upgraded (so that key's counts and ban carry over, and the previous release,
 * still serving during a rolling upgrade, counts the same counter), else the customer's own id.
 */
export interface CustomerRecord {
  /** `cus_` + 16 base62 characters. */
  id: string
  name: string
  /** The operator's own id for the customer (e.g. in billing): unique, or null. */
  externalId: string | null
  plan: string
  /** The customer's own numbers; null means the plan's. */
  perMinute: number | null
  perDay: number | null
  /** The customer's own monthly quota, with its own numbers (null: none); with the plan's numbers, the plan's quota applies. */
  perMonth: number | null
  counterId: string
  /** Unix milliseconds. */
  createdAt: number
}

/** A customer with how many of its keys are not revoked. */
export interface CustomerWithKeys extends CustomerRecord {
  keys: number
}

/** Fields `CustomerStore.update` sets; absent ones stay. Plan and numbers are copied to the customer's keys (see KeyStore). */
export interface CustomerChanges {
  name?: string
  externalId?: string | null
  plan?: string
  perMinute?: number | null
  perDay?: number | null
  perMonth?: number | null
}

/** Which customers a page of the operator API's list holds; every filter given must match. */
export interface CustomerPageQuery {
  /** Text the id, name or external id contains, in lower case (compared folded to lower case). */
  search?: string | undefined
  plan?: string | undefined
  /** Only customers older than this one: created before it, or at the same moment with a smaller id. */
  before?: { createdAt: number; id: string } | undefined
  limit: number
}

export type CustomerUpdate =
  { outcome: 'updated'; before: CustomerRecord; after: CustomerRecord } | { outcome: 'missing' } | { outcome: 'external_id_taken' }

/**
 * Customers (migration 9). Every change writes its audit entry in the same transaction. A key
 * the previous release created during a rolling upgrade has no customer until `adoptKeys`
 * gives it one of its own; until then it is served as one (its own plan, numbers and counters).
 */
export interface CustomerStore {
  /** Inserts the customer and `audit`; false (nothing written) when its external id is taken. */
  create(customer: CustomerRecord, audit: AuditEntry): Promise<boolean>
  get(id: string): Promise<CustomerWithKeys | undefined>
  /** The customers whose counters are these, in no order; unknown ids are left out. */
  byCounterIds(counterIds: readonly string[]): Promise<CustomerWithKeys[]>
  /** At most `limit` customers that match, newest first (by creation, then id). */
  page(query: CustomerPageQuery): Promise<CustomerWithKeys[]>
  /** Sets `changes` (and the plan and numbers on its keys) and writes `audit(before, after)`. */
  update(
    id: string,
    changes: CustomerChanges,
    audit: (before: CustomerRecord, after: CustomerRecord) => AuditEntry
  ): Promise<CustomerUpdate>
  /** Gives every key without a customer one of its own (see ADOPT_KEYS); returns how many it made. */
  adoptKeys(): Promise<number>
}
