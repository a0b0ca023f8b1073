import type { Scope } from '@animal-store/contract'
import type { AuditEntry } from '../audit/types.ts'
import type { CustomerRecord } from '../customers/types.ts'
import type { KeyPageQuery } from './page.ts'

export interface ApiKeyRecord {
  id: string
  /** The first characters of the secret, safe to show (e.g. `as_live_Ab3x`). */
  prefix: string
  name: string | null
  /** The customer the key belongs to; null only for a key the previous release made during a rolling upgrade, until adopted. */
  customerId: string | null
  /** Its customer's counters (subject `key:<counterId>`), shared by the customer's keys. */
  counterId: string
  /** The customer's plan and its own numbers (null: the plan's): the key runs under them. */
  plan: string
  perMinute: number | null
  perDay: number | null
  /** The customer's own monthly quota, in force only with its own numbers (else the plan's); null: none. */
  perMonth: number | null
  /** Unix milliseconds. */
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
  /** When the secret a rotation replaced stops working; null when there is none. */
  previousSecretExpiresAt: number | null
  /** What the key may do (in SCOPES order). */
  scopes: readonly Scope[]
}

/** A key found by one of its secrets. */
export interface KeyMatch extends ApiKeyRecord {
  /** When the secret that found it stops working: null for the current secret, the grace's end for the one a rotation replaced. */
  secretStopsAt: number | null
}

/** Fields `KeyStore.update` sets; absent ones stay as they are. `plan`, `perMinute` and `perDay` are the key's customer's. */
export interface KeyChanges {
  plan?: string
  perMinute?: number | null
  perDay?: number | null
  perMonth?: number | null
  name?: string | null
  expiresAt?: number | null
  scopes?: readonly Scope[]
}

/** A customer made in the same transaction as its first key, and its audit entry. */
export interface NewCustomer {
  record: CustomerRecord
  audit: AuditEntry
}

/**
 * Every change to a key writes its audit entry in the same transaction: both are stored, or
 * neither. The key's own `plan`, `per_minute` and `per_day` columns are kept equal to its
 * customer's, for a release that does not know customers (it may serve during a rolling upgrade).
 */
export interface KeyStore {
  /**
   * Inserts a key with the SHA-256 hash (hex) of its secret, and `audit`, after `customer` when
   * given (its own customer); fails without writing when the id or hash exists, or when the key's
   * customer does not.
   */
  create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry, customer?: NewCustomer): Promise<void>
  /** Returns the key whose current or previous secret hashes to `secretHash`, revoked or not, or undefined. */
  findByHash(secretHash: string): Promise<KeyMatch | undefined>
  /** Returns the key with this id, or undefined. */
  get(id: string): Promise<ApiKeyRecord | undefined>
  /** Returns every key, oldest first. */
  list(): Promise<ApiKeyRecord[]>
  /** At most `limit` keys that match the query, newest first (by creation, then id); one index range scan. */
  page(query: KeyPageQuery): Promise<ApiKeyRecord[]>
  /** Revokes the key at `at` and writes `audit(key)`; undefined (nothing written) when no unrevoked key has this id. */
  revoke(id: string, at: number, audit: (revoked: ApiKeyRecord) => AuditEntry): Promise<ApiKeyRecord | undefined>
  /**
   * Sets `changes` (plan and numbers on the key's customer, and so on all its keys) and writes
   * `audit(before, after)`; undefined (nothing written) when no unrevoked key has this id.
   */
  update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry[]
  ): Promise<ApiKeyRecord | undefined>
  /**
   * The current secret becomes the previous one (valid until `previousExpiresAt`), `secretHash` the new one, and
   * `audit(key)` is written; undefined (nothing written) when no unrevoked key has this id.
   */
  rotate(
    id: string,
    rotation: { secretHash: string; prefix: string; previousExpiresAt: number },
    audit: (rotated: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined>
}
