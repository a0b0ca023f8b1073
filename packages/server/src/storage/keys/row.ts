import type { ApiKeyRecord } from './types.ts'

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
    previousSecretExpiresAt: optional(row.previous_secret_expires_at)
  }
}

/** The columns a `KeyChanges` field is stored in. */
export const CHANGED_COLUMNS = { plan: 'plan', perMinute: 'per_minute', perDay: 'per_day', name: 'name', expiresAt: 'expires_at' } as const
