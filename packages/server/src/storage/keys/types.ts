import type { Scope } from '@animal-store/contract'
import type { AuditEntry } from '../audit/types.ts'
import type { KeyPageQuery } from './page.ts'

export interface ApiKeyRecord {
  id: string
  /** The first characters of the secret, safe to show (e.g. `as_live_Ab3x`). */
  prefix: string
  name: string | null
  plan: string
  /** Per-key overrides of the plan's limits; null means the plan's number. */
  perMinute: number | null
  perDay: number | null
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

/** Fields `KeyStore.update` sets; absent ones stay as they are. */
export interface KeyChanges {
  plan?: string
  perMinute?: number | null
  perDay?: number | null
  name?: string | null
  expiresAt?: number | null
  scopes?: readonly Scope[]
}

/** Every change to a key writes its audit entry in the same transaction: both are stored, or neither. */
export interface KeyStore {
  /** Inserts a key with the SHA-256 hash (hex) of its secret, and `audit`; fails without writing when the id or hash exists. */
  create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry): Promise<void>
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
  /** Sets `changes` and writes `audit(before, after)`; undefined (nothing written) when no unrevoked key has this id. */
  update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry
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
