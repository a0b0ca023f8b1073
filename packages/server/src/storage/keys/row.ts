import { SCOPES, type Scope } from '@animal-store/contract'
import type { ApiKeyRecord, KeyChanges } from './types.ts'

/** An api_keys row as a driver returns it: numbers as `N` (number in SQLite, decimal text from pg). */
export interface KeyRow<N> {
  id: string
  prefix: string
  name: string | null
  plan: string
  per_minute: N | null
  per_day: N | null
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
    plan: row.plan,
    perMinute: optional(row.per_minute),
    perDay: optional(row.per_day),
    createdAt: toNumber(row.created_at),
    expiresAt: optional(row.expires_at),
    revokedAt: optional(row.revoked_at),
    previousSecretExpiresAt: optional(row.previous_secret_expires_at),
    scopes: scopesOf(row.scopes)
  }
}

/** The columns a `KeyChanges` field is stored in. */
export const CHANGED_COLUMNS = {
  plan: 'plan',
  perMinute: 'per_minute',
  perDay: 'per_day',
  name: 'name',
  expiresAt: 'expires_at',
  scopes: 'scopes'
} as const

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

/** The changed fields as `[column field, value to store]`, in the order given. */
export function changedValues(changes: KeyChanges): Array<[keyof KeyChanges, string | number | null]> {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => [
      field as keyof KeyChanges,
      field === 'scopes' ? scopesText(value as Scope[]) : (value as string | number | null)
    ])
}
