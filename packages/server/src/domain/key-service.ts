import type { RateLimitStatus } from '@animal-store/contract'
import type { Clock } from '../base/clock.ts'
import type { ApiKeyRecord, KeyStore } from '../storage/types.ts'
import type { Actor } from './actor.ts'
import { graceSeconds, keyChanges, newKeyFields, type CreateKeyInput, type RotateKeyInput, type UpdateKeyInput } from './key-changes.ts'
import { KeyNotFoundError, KeyRevokedError } from './key-errors.ts'
import { fieldChanges, keyEvent, type KeyEvent } from './key-events.ts'
import {
  generateId,
  generateSecret,
  hashSecret,
  limitsOf,
  looksLikeKeyId,
  NO_USAGE,
  prefixOf,
  viewKey,
  type KeyLimitState,
  type KeyView
} from './keys.ts'
import { rateLimitStatus } from './rate-limit-policy.ts'

/** A change the service made: the key after it, and the change as the audit log records it. */
export interface ChangedKey {
  view: KeyView
  event: KeyEvent
}

/** A change that issued a secret (create, rotate): `key` is shown this once and stored only as a hash. */
export interface IssuedKey extends ChangedKey {
  key: string
}

/** A revocation: `event` is null when the key was already revoked, which changes nothing and succeeds. */
export interface KeyRevocation {
  view: KeyView
  event: KeyEvent | null
}

export interface KeyServiceOptions {
  /** Called once a key's secrets, limits or revocation changed, so this process's key cache drops it at once. */
  keyChanged?: (keyId: string) => void
}

/**
 * Key administration, the one way keys change, for the CLI and the operator API alike. Refusals:
 * KeyNotFoundError (no key has the id), KeyInputError (bad input, with its field),
 * KeyRevokedError (changing or rotating a revoked key); bad input changes nothing.
 */
export class KeyService {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #limits: KeyLimitState
  readonly #keyChanged: (keyId: string) => void

  constructor(store: KeyStore, clock: Clock, limits: KeyLimitState, options: KeyServiceOptions = {}) {
    this.#store = store
    this.#clock = clock
    this.#limits = limits
    this.#keyChanged = options.keyChanged ?? (() => {})
  }

  async create(input: CreateKeyInput, actor: Actor): Promise<IssuedKey> {
    const now = this.#clock.now()
    const fields = newKeyFields(input, now)
    const secret = generateSecret()
    const record: ApiKeyRecord = {
      id: generateId(),
      prefix: prefixOf(secret),
      ...fields,
      createdAt: now,
      revokedAt: null,
      previousSecretExpiresAt: null
    }
    await this.#store.create(record, hashSecret(secret))
    return { key: secret, view: viewKey(record, NO_USAGE, now), event: keyEvent('key.create', actor, record, now) }
  }

  async get(id: string): Promise<KeyView> {
    return this.#view(await this.#find(id), this.#clock.now())
  }

  /** Every key, oldest first. */
  async list(): Promise<KeyView[]> {
    const now = this.#clock.now()
    return Promise.all((await this.#store.list()).map((key) => this.#view(key, now)))
  }

  /** Changes the key in place (same secret); its usage and any ban stay. */
  async update(id: string, input: UpdateKeyInput, actor: Actor): Promise<ChangedKey> {
    const now = this.#clock.now()
    const before = await this.#find(id)
    if (before.revokedAt !== null) throw new KeyRevokedError(id, 'changed')
    const after = await this.#store.update(id, keyChanges(before, input, now))
    if (after === undefined) throw new KeyNotFoundError(id)
    this.#keyChanged(id)
    return { view: await this.#view(after, now), event: keyEvent('key.update', actor, after, now, fieldChanges(before, after)) }
  }

  /** A new secret for the key (same id, plan, usage and ban); the old one works for `graceSeconds` more (default a day). */
  async rotate(id: string, input: RotateKeyInput, actor: Actor): Promise<IssuedKey> {
    const now = this.#clock.now()
    if ((await this.#find(id)).revokedAt !== null) throw new KeyRevokedError(id, 'rotated')
    const previousExpiresAt = now + graceSeconds(input.graceSeconds) * 1000
    const secret = generateSecret()
    const rotated = await this.#store.rotate(id, { secretHash: hashSecret(secret), prefix: prefixOf(secret), previousExpiresAt })
    if (rotated === undefined) throw new KeyNotFoundError(id)
    this.#keyChanged(id)
    return { key: secret, view: await this.#view(rotated, now), event: keyEvent('key.rotate', actor, rotated, now) }
  }

  /** Revokes the key; revoking a revoked key succeeds and keeps the first revocation's time. */
  async revoke(id: string, actor: Actor): Promise<KeyRevocation> {
    const now = this.#clock.now()
    const before = await this.#find(id)
    if (before.revokedAt === null) await this.#store.revoke(id, now)
    // Even when it was revoked already: another process may have done it while this one trusts its cached copy.
    this.#keyChanged(id)
    const after = await this.#find(id)
    return { view: await this.#view(after, now), event: before.revokedAt === null ? keyEvent('key.revoke', actor, after, now) : null }
  }

  /** Lifts the key's ban, if any, and clears its refusal count; unbanning a key that is not banned succeeds. */
  async unban(id: string, actor: Actor): Promise<ChangedKey> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    await this.#limits.unban(id, now)
    return { view: await this.#view(key, now), event: keyEvent('key.unban', actor, key, now) }
  }

  /** The key's use of both windows now and its ban, as `GET /v1/rate_limit` answers it, with its id. */
  async usage(id: string): Promise<{ id: string } & RateLimitStatus> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    return { id, ...rateLimitStatus(key.plan, limitsOf(key), now, await this.#limits.usage(id, now)) }
  }

  /** The key with this id; an id not of our shape is not looked up. */
  async #find(id: string): Promise<ApiKeyRecord> {
    const key = looksLikeKeyId(id) ? await this.#store.get(id) : undefined
    if (key === undefined) throw new KeyNotFoundError(id)
    return key
  }

  async #view(key: ApiKeyRecord, now: number): Promise<KeyView> {
    return viewKey(key, await this.#limits.usage(key.id, now), now)
  }
}
