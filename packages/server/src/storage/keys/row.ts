import { SCOPES, type Scope } from '@animal-store/contract'
import type { ApiKeyRecord, KeyChanges } from './types.ts'

/** An api_keys row as a driver returns it: numbers as `N` (number in SQLite, decimal text from pg). */
export interface KeyRow<N> {
  id: string
  prefix: string
  name: string | null
  customer_id: string | null
  counter_id: string
  plan: string
  per_minute: N | null
  per_day: N | null
  per_month: N | null
  created_at: N
  expires_at: N | null
  revoked_at: N | null
  previous_secret_expires_at: N | null
  /** Space-separated, as an OAuth scope parameter (RFC 6749 §3.3). */
  scopes: string
}

/** The one mapping from a key row to the record, for every backend. */
export function keyFromRow<N>(row: KeyRow<N>, toNumber: (value: N) => number): ApiKeyRecord {
  const optional = (value: N | null) => (value === null ? null : toNumber(value))
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    customerId: row.customer_id,
    counterId: row.counter_id,
    plan: row.plan,
    perMinute: optional(row.per_minute),
    perDay: optional(row.per_day),
    perMonth: optional(row.per_month),
    createdAt: toNumber(row.created_at),
    expiresAt: optional(row.expires_at),
    revokedAt: optional(row.revoked_at),
    previousSecretExpiresAt: optional(row.previous_secret_expires_at),
    scopes: scopesOf(row.scopes)
  }
}

/** A key joined to its customer, whose plan and numbers it runs under (its own while it has none). */
export const KEYS_WITH_CUSTOMERS = 'api_keys k LEFT JOIN customers c ON c.id = k.customer_id'

/**
 * The columns of a KeyRow over KEYS_WITH_CUSTOMERS; `time(column, alias)` reads a time column
 * as Unix milliseconds. A key without a customer counts under its own id, as its adopted
 * customer will.
 */
export function keyColumns(time: (column: string, alias: string) => string): string {
  const own = (column: string) => `CASE WHEN c.id IS NULL THEN k.${column} ELSE c.${column} END AS ${column}`
  return [
    'k.id',
    'k.prefix',
    'k.name',
    'k.customer_id',
    'coalesce(c.counter_id, k.id) AS counter_id',
    'coalesce(c.plan, k.plan) AS plan',
    own('per_minute'),
    own('per_day'),
    // api_keys has no per_month: a key not adopted yet has no monthly quota of its own.
    'c.per_month AS per_month',
    ...['created_at', 'expires_at', 'revoked_at', 'previous_secret_expires_at'].map((column) => time(`k.${column}`, column)),
    'k.scopes'
  ].join(', ')
}

/** The counters a page filter names: the customer's, or the key's own while it has none. */
export const COUNTER_OF_KEY = 'coalesce(c.counter_id, k.id)'

/** The columns of api_keys a `KeyChanges` field of the key itself is stored in. */
export const CHANGED_COLUMNS = {
  name: 'name',
  expiresAt: 'expires_at',
  scopes: 'scopes'
} as const

/** Splits changes into the key's own and its customer's (plan, numbers and monthly quota). */
export function splitChanges(changes: KeyChanges): {
  own: Pick<KeyChanges, 'name' | 'expiresAt' | 'scopes'>
  customer: Pick<KeyChanges, 'plan' | 'perMinute' | 'perDay' | 'perMonth'>
} {
  const { plan, perMinute, perDay, perMonth, ...own } = changes
  const customer = Object.fromEntries(Object.entries({ plan, perMinute, perDay, perMonth }).filter(([, value]) => value !== undefined))
  return { own, customer }
}

/** The scopes column's text: the scopes in SCOPES order, space-separated. */
export const scopesText = (scopes: readonly Scope[]): string => SCOPES.filter((scope) => scopes.includes(scope)).join(' ')

// A handful of distinct texts: each is parsed once and its list shared by every key that has it.
const parsed = new Map<string, readonly Scope[]>()
function scopesOf(text: string): readonly Scope[] {
  let scopes = parsed.get(text)
  if (scopes === undefined) {
    scopes = Object.freeze(SCOPES.filter((scope) => text.split(' ').includes(scope)))
    parsed.set(text, scopes)
  }
  return scopes
}

/** The changed fields of the key itself as `[column field, value to store]`, in the order given. */
export function changedValues(
  changes: Pick<KeyChanges, 'name' | 'expiresAt' | 'scopes'>
): Array<[keyof typeof CHANGED_COLUMNS, string | number | null]> {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => [
      field as keyof typeof CHANGED_COLUMNS,
      field === 'scopes' ? scopesText(value as Scope[]) : (value as string | number | null)
    ])
}
