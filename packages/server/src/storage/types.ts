import type { Int64, Pet, PetStatus, PlanName } from '@animal-store/contract'
import type { Maybe } from '../base/maybe.ts'
import type { AuditEntry, AuditStore } from './audit-types.ts'
import type { KeyPageQuery } from './key-page.ts'
import type { OperatorStore } from './operator-types.ts'
import type { UsageStore } from './usage-types.ts'

export interface NewPetRecord {
  name: string
  categoryId: Int64
  status: PetStatus
}

export interface PetPageQuery {
  /** Only pets in this status; all when undefined. */
  status: PetStatus | undefined
  /** Only pets with an id greater than this; from the first when undefined. */
  afterId: Int64 | undefined
  limit: number
}

/** The first response to an idempotent request, kept to be replayed. */
export interface StoredResponse {
  status: number
  /** The exact JSON text of the body. */
  body: string
  location: string | null
}

/** An Idempotency-Key is scoped to the API key that sent it. */
export interface IdempotencyScope {
  apiKeyId: string
  key: string
}

/** Completes a claim in the same transaction as the write it guards. */
export interface IdempotencyCompletion {
  scope: IdempotencyScope
  /** The claim's token: the completion applies only while the claim is still this request's. */
  token: string
  respond(pet: Pet): StoredResponse
}

/** A create waiting for its store's next group commit, and how to answer it. */
export interface PendingCreate {
  pet: NewPetRecord
  idempotency: IdempotencyCompletion | undefined
  resolve: (pet: Pet) => void
  reject: (error: unknown) => void
}

export type IdempotencyClaim =
  | { state: 'claimed'; token: string }
  | { state: 'in_flight'; fingerprint: string }
  | { state: 'completed'; fingerprint: string; response: StoredResponse }

export interface IdempotencyStore {
  /**
   * Atomically, across every instance: claims the scope for a request whose body has this
   * fingerprint, unless a live record holds it. A completed record is live when created at or
   * after `expiredBefore`; an unfinished claim while claimed at or after `staleBefore` (an
   * abandoned claim, e.g. after a crash, can then be taken over). Returns the claim's token, or
   * the live record.
   */
  claim(
    scope: IdempotencyScope,
    fingerprint: string,
    now: number,
    limits: { expiredBefore: number; staleBefore: number }
  ): Promise<IdempotencyClaim>
  /** Drops this request's unfinished claim (its write failed), so the key can be used again. */
  release(scope: IdempotencyScope, token: string): Promise<void>
  /** Deletes records created before `before`; returns how many. */
  purge(before: number): Promise<number>
}

/** The claim was taken over (it went stale) before its write committed; nothing was written. */
export class IdempotencyClaimLostError extends Error {
  override name = 'IdempotencyClaimLostError'
}

export interface PetStore {
  /**
   * Atomically inserts a pet and returns it with its new id, greater than every id before it;
   * durably committed when the promise resolves. With `idempotency`, the claim's response is
   * recorded in the same transaction (IdempotencyClaimLostError, and no pet, when the claim is
   * no longer this request's).
   */
  create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet>
  /**
   * Returns at most `limit` pets in ascending id order, after `afterId` and in `status` when
   * given; one indexed range scan. A store that reads in-process may answer without a promise.
   */
  page(query: PetPageQuery): Maybe<Pet[]>
  /** Returns the pet with this id, or undefined; a store that reads in-process may answer without a promise. */
  get(id: Int64): Maybe<Pet | undefined>
}

/** What the pets were read at: a token that changes whenever they may have changed. */
export type PetsVersionToken = number | string

/**
 * Tells whether the pets changed since a read, so what was read can be reused until they do.
 * `current()` is undefined when it cannot tell (nothing is reused then).
 */
export interface PetsVersion {
  current(): Maybe<PetsVersionToken | undefined>
}

export interface ApiKeyRecord {
  id: string
  /** The first characters of the secret, safe to show (e.g. `as_live_Ab3x`). */
  prefix: string
  name: string | null
  plan: PlanName
  /** Per-key overrides of the plan's limits; null means the plan's number. */
  perMinute: number | null
  perDay: number | null
  /** Unix milliseconds. */
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
  /** When the secret a rotation replaced stops working; null when there is none. */
  previousSecretExpiresAt: number | null
}

/** A key found by one of its secrets. */
export interface KeyMatch extends ApiKeyRecord {
  /** When the secret that found it stops working: null for the current secret, the grace's end for the one a rotation replaced. */
  secretStopsAt: number | null
}

/** Fields `KeyStore.update` sets; absent ones stay as they are. */
export interface KeyChanges {
  plan?: PlanName
  perMinute?: number | null
  perDay?: number | null
  name?: string | null
  expiresAt?: number | null
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

export interface Storage {
  readonly pets: PetStore
  readonly keys: KeyStore
  readonly idempotency: IdempotencyStore
  readonly usage: UsageStore
  readonly operators: OperatorStore
  readonly audit: AuditStore
  /** Applies pending numbered migrations, once even when several processes start together; returns how many it applied. */
  migrate(): Promise<number>
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  /** Releases connections and file handles; pending writes are committed first. */
  close(): Promise<void>
}

/** Thrown by a store when its database cannot be reached; the HTTP layer answers 503. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}
