import type { CustomerChanges, CustomerWithKeys } from './types.ts'

/** A customers row (with its count of keys not revoked) as a driver returns it: numbers as `N`. */
export interface CustomerRow<N> {
  id: string
  name: string
  external_id: string | null
  plan: string
  per_minute: N | null
  per_day: N | null
  per_month: N | null
  counter_id: string
  created_at: N
  keys: N
}

/** The one mapping from a customer row to the record, for every backend. */
export function customerFromRow<N>(row: CustomerRow<N>, toNumber: (value: N) => number): CustomerWithKeys {
  return {
    id: row.id,
    name: row.name,
    externalId: row.external_id,
    plan: row.plan,
    perMinute: row.per_minute === null ? null : toNumber(row.per_minute),
    perDay: row.per_day === null ? null : toNumber(row.per_day),
    perMonth: row.per_month === null ? null : toNumber(row.per_month),
    counterId: row.counter_id,
    createdAt: toNumber(row.created_at),
    keys: toNumber(row.keys)
  }
}

/** The columns a `CustomerChanges` field is stored in. */
const CUSTOMER_COLUMNS: Record<keyof CustomerChanges, string> = {
  name: 'name',
  externalId: 'external_id',
  plan: 'plan',
  perMinute: 'per_minute',
  perDay: 'per_day',
  perMonth: 'per_month'
}

/** The changed fields as `[column, value]`, in the order given. */
export const customerChangedValues = (changes: CustomerChanges): Array<[string, string | number | null]> =>
  Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => [CUSTOMER_COLUMNS[field as keyof CustomerChanges], value as string | number | null])

/**
 * The changes that also go to the customer's keys' own columns (read by the previous release, see
 * KeyStore). Not the monthly quota: api_keys has no column for it, that release knows no month.
 */
export const mirroredOnKeys = (changes: CustomerChanges): Array<[string, string | number | null]> =>
  customerChangedValues({ plan: changes.plan, perMinute: changes.perMinute, perDay: changes.perDay })

/**
 * Gives every key without a customer one of its own, in this order: same name (its id when it
 * has none), plan, numbers and creation time, the counters of subject `key:<key id>` (its counts
 * and ban carry over), and an id made from the key's (`cus_` + its random part), so instances
 * running it at once make the same customer, once. The same text on SQLite and PostgreSQL.
 * per_month is left null: the key had no monthly quota of its own (none applies with its own
 * numbers; its plan's does without).
 */
export const ADOPT_KEYS = [
  `INSERT INTO customers (id, name, external_id, plan, per_minute, per_day, counter_id, created_at)
    SELECT 'cus_' || substr(id, 5), coalesce(nullif(name, ''), id), NULL, plan, per_minute, per_day, id, created_at
    FROM api_keys WHERE customer_id IS NULL
    ON CONFLICT DO NOTHING`,
  // Only to a customer that exists: a key the previous release commits between the two statements waits for the next run.
  `UPDATE api_keys SET customer_id = 'cus_' || substr(id, 5)
    WHERE customer_id IS NULL AND EXISTS (SELECT 1 FROM customers c WHERE c.id = 'cus_' || substr(api_keys.id, 5) AND c.counter_id = api_keys.id)`
] as const
