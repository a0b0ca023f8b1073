import type { RateLimitStatus } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { AuditStore } from '../../storage/audit/types.ts'
import type { ApiKeyRecord, KeyStore } from '../../storage/keys/types.ts'
import { CLI_ORIGIN, type Actor, type RequestOrigin } from '../actor.ts'
import { auditEntry } from '../audit/log.ts'
import type { PlanStore } from '../../storage/plans/types.ts'
import type { PlanBook } from '../plans/book.ts'
import {
  graceSeconds,
  keyChanges,
  newKeyFields,
  planChoice,
  type CreateKeyInput,
  type RotateKeyInput,
  type UpdateKeyInput
} from './changes.ts'
import { KeyNotFoundError, KeyRevokedError } from './errors.ts'
import { fieldChanges, keyEvent, type KeyEvent } from './events.ts'
import type { KeyViews } from './views.ts'
import { NO_USAGE, type KeyLimitState } from './limits.ts'
import { generateId, generateSecret, hashSecret, looksLikeKeyId, prefixOf } from './secret.ts'
import { viewKey, type KeyView } from './views.ts'
import { rateLimitStatus } from '../rate-limits/policy.ts'

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

/** What the key service works with; the composition root hands them in. */
export interface KeyServiceParts {
  store: KeyStore
  /** Where an unban (a change to the counters, not to the database) is audited. */
  audit: AuditStore
  clock: Clock
  limits: KeyLimitState
  views: KeyViews
  /** The plans a key may be put on (read at each create or change), and their limits. */
  plans: Pick<PlanStore, 'list'>
  planBook: PlanBook
  /** Called once a key's secrets, limits or revocation changed, so this process's key cache drops it at once. */
  keyChanged?: ((keyId: string) => void) | undefined
}

/**
 * Key administration, the one way keys change, for the CLI and the operator API alike. Every
 * change is audited with its actor and origin, in the same transaction as the change itself.
 * Refusals: KeyNotFoundError (no key has the id), KeyInputError (bad input, with its field),
 * KeyRevokedError (changing or rotating a revoked key); a refusal changes nothing.
 */
export class KeyService {
  readonly #store: KeyStore
  readonly #audit: AuditStore
  readonly #clock: Clock
  readonly #limits: KeyLimitState
  readonly #views: KeyViews
  readonly #plans: Pick<PlanStore, 'list'>
  readonly #planBook: PlanBook
  readonly #keyChanged: (keyId: string) => void

  constructor(parts: KeyServiceParts) {
    this.#store = parts.store
    this.#audit = parts.audit
    this.#clock = parts.clock
    this.#limits = parts.limits
    this.#views = parts.views
    this.#plans = parts.plans
    this.#planBook = parts.planBook
    this.#keyChanged = parts.keyChanged ?? (() => {})
  }

  async create(input: CreateKeyInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<IssuedKey> {
    const now = this.#clock.now()
    const fields = newKeyFields(input, now, planChoice(await this.#plans.list()))
    const secret = generateSecret()
    const record: ApiKeyRecord = {
      id: generateId(),
      prefix: prefixOf(secret),
      ...fields,
      createdAt: now,
      revokedAt: null,
      previousSecretExpiresAt: null
    }
    const event = keyEvent('key.create', actor, record, now)
    await this.#store.create(record, hashSecret(secret), auditEntry(event, origin))
    // A new key has no usage and no last use: its view asks neither the counters nor the history.
    return { key: secret, view: viewKey(record, await this.#planBook.limitsOf(record), NO_USAGE, now, null), event }
  }

  async get(id: string): Promise<KeyView> {
    return this.#views.one(await this.#find(id), this.#clock.now())
  }

  /** Every key, oldest first. */
  async list(): Promise<KeyView[]> {
    return this.#views.of(await this.#store.list(), this.#clock.now())
  }

  /** Changes the key in place (same secret); its usage and any ban stay. */
  async update(id: string, input: UpdateKeyInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedKey> {
    const now = this.#clock.now()
    const before = await this.#find(id)
    if (before.revokedAt !== null) throw new KeyRevokedError(id, 'changed')
    let event: KeyEvent | undefined
    const changes = keyChanges(before, input, now, planChoice(await this.#plans.list()))
    const after = await this.#store.update(id, changes, (from, to) => {
      event = keyEvent('key.update', actor, to, now, fieldChanges(from, to))
      return auditEntry(event, origin)
    })
    if (after === undefined || event === undefined) throw await this.#refusal(id, 'changed')
    this.#keyChanged(id)
    return { view: await this.#views.one(after, now), event }
  }

  /** A new secret for the key (same id, plan, usage and ban); the old one works for `graceSeconds` more (default a day). */
  async rotate(id: string, input: RotateKeyInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<IssuedKey> {
    const now = this.#clock.now()
    if ((await this.#find(id)).revokedAt !== null) throw new KeyRevokedError(id, 'rotated')
    const previousExpiresAt = now + graceSeconds(input.graceSeconds) * 1000
    const secret = generateSecret()
    let event: KeyEvent | undefined
    const rotation = { secretHash: hashSecret(secret), prefix: prefixOf(secret), previousExpiresAt }
    const rotated = await this.#store.rotate(id, rotation, (key) => auditEntry((event = keyEvent('key.rotate', actor, key, now)), origin))
    if (rotated === undefined || event === undefined) throw await this.#refusal(id, 'rotated')
    this.#keyChanged(id)
    return { key: secret, view: await this.#views.one(rotated, now), event }
  }

  /** Revokes the key; revoking a revoked key succeeds, keeps the first revocation's time and is not audited again. */
  async revoke(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<KeyRevocation> {
    const now = this.#clock.now()
    await this.#find(id)
    let event: KeyEvent | null = null
    const revoked = await this.#store.revoke(id, now, (key) => auditEntry((event = keyEvent('key.revoke', actor, key, now)), origin))
    // Even when it was revoked already: another process may have done it while this one trusts its cached copy.
    this.#keyChanged(id)
    return { view: await this.#views.one(revoked ?? (await this.#find(id)), now), event }
  }

  /**
   * Lifts the key's ban, if any, and clears its refusal count; unbanning a key that is not banned
   * succeeds. The counters are not in the database: the audit entry is written right after.
   */
  async unban(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedKey> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    await this.#limits.unban(id, now)
    const event = keyEvent('key.unban', actor, key, now)
    await this.#audit.append(auditEntry(event, origin))
    return { view: await this.#views.one(key, now), event }
  }

  /** The key's use of both windows now and its ban, as `GET /v1/rate_limit` answers it, with its id. */
  async usage(id: string): Promise<{ id: string } & RateLimitStatus> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    return { id, ...rateLimitStatus(key.plan, await this.#planBook.limitsOf(key), now, await this.#limits.usage(id, now)) }
  }

  /** The key with this id; an id not of our shape is not looked up. */
  async #find(id: string): Promise<ApiKeyRecord> {
    const key = looksLikeKeyId(id) ? await this.#store.get(id) : undefined
    if (key === undefined) throw new KeyNotFoundError(id)
    return key
  }

  /** Why a change the store refused did not apply: the key was revoked meanwhile, or is gone. */
  async #refusal(id: string, operation: 'changed' | 'rotated'): Promise<Error> {
    return (await this.#store.get(id)) === undefined ? new KeyNotFoundError(id) : new KeyRevokedError(id, operation)
  }
}
