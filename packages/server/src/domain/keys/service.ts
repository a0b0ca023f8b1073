import type { RateLimitStatus } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { AuditStore } from '../../storage/audit/types.ts'
import type { CustomerWithKeys } from '../../storage/customers/types.ts'
import type { ApiKeyRecord, KeyStore } from '../../storage/keys/types.ts'
import type { PlanStore } from '../../storage/plans/types.ts'
import { CLI_ORIGIN, type Actor, type RequestOrigin } from '../actor.ts'
import { auditEntry } from '../audit/log.ts'
import { NO_USAGE, type CustomerCounters } from '../customers/counters.ts'
import { customerEvent, customerFieldChanges } from '../customers/events.ts'
import type { PlanBook } from '../plans/book.ts'
import { planChoice } from '../plans/changes.ts'
import { rateLimitStatus } from '../rate-limits/policy.ts'
import {
  graceSeconds,
  keyChanges,
  newKeyCustomer,
  newKeyFields,
  type CreateKeyInput,
  type RotateKeyInput,
  type UpdateKeyInput
} from './changes.ts'
import { KeyNotFoundError, KeyRevokedError } from './errors.ts'
import { fieldChanges, keyEvent, type ChangedKey, type IssuedKey, type KeyEvent, type KeyRevocation } from './events.ts'
import { keyOwner } from './owner.ts'
import { generateId, generateSecret, hashSecret, looksLikeKeyId, prefixOf } from './secret.ts'
import { viewKey, type KeyView, type KeyViews } from './views.ts'

/** What the key service works with; the composition root hands them in. */
export interface KeyServiceParts {
  store: KeyStore
  /** Where an unban (a change to the counters, not to the database) is audited. */
  audit: AuditStore
  clock: Clock
  limits: CustomerCounters
  views: KeyViews
  /** The plans a key may be put on (read at each create or change), and their limits. */
  plans: Pick<PlanStore, 'list'>
  planBook: PlanBook
  /** The customer a key is created for; `adoptKeys` gives one to each key the previous release made. */
  customers: { find(id: string): Promise<CustomerWithKeys>; adoptKeys(): Promise<number> }
  /** Called once a key's secrets, limits or revocation changed, so this process's key cache drops it at once. */
  keyChanged?: ((keyId: string) => void) | undefined
  /** Called once a customer's plan or numbers changed (all its keys), likewise. */
  customerChanged?: (() => void) | undefined
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
  readonly #limits: CustomerCounters
  readonly #views: KeyViews
  readonly #plans: Pick<PlanStore, 'list'>
  readonly #planBook: PlanBook
  readonly #customers: KeyServiceParts['customers']
  readonly #keyChanged: (keyId: string) => void
  readonly #customerChanged: () => void

  constructor(parts: KeyServiceParts) {
    this.#store = parts.store
    this.#audit = parts.audit
    this.#clock = parts.clock
    this.#limits = parts.limits
    this.#views = parts.views
    this.#plans = parts.plans
    this.#planBook = parts.planBook
    this.#customers = parts.customers
    this.#keyChanged = parts.keyChanged ?? (() => {})
    this.#customerChanged = parts.customerChanged ?? (() => {})
  }

  /** A key for a customer (`customerId`), or with a customer of its own on `plan` made in the same transaction. */
  async create(input: CreateKeyInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<IssuedKey> {
    const now = this.#clock.now()
    const own = newKeyFields(input, now)
    const choice = newKeyCustomer(input, planChoice(await this.#plans.list()))
    const secret = generateSecret()
    const id = generateId()
    const owner = await keyOwner(choice, { id, name: own.name }, this.#customers, { actor, origin, now })
    const record: ApiKeyRecord = {
      id,
      prefix: prefixOf(secret),
      ...own,
      ...owner.fields,
      createdAt: now,
      revokedAt: null,
      previousSecretExpiresAt: null
    }
    const event = keyEvent('key.create', actor, record, now)
    await this.#store.create(record, hashSecret(secret), auditEntry(event, origin), owner.newCustomer)
    // A new key has no last use, and a new customer no usage: its view asks neither.
    const usage = owner.newCustomer === undefined ? await this.#limits.usage(record.counterId, now) : NO_USAGE
    return { key: secret, view: viewKey(record, await this.#planBook.limitsOf(record), usage, now, null), event }
  }

  async get(id: string): Promise<KeyView> {
    return this.#views.one(await this.#find(id), this.#clock.now())
  }

  /** Every key, oldest first. */
  async list(): Promise<KeyView[]> {
    return this.#views.of(await this.#store.list(), this.#clock.now())
  }

  /**
   * Changes the key in place (same secret); its usage and any ban stay. A plan or numbers change
   * the key's customer (all its keys), audited as a customer.update beside the key.update.
   */
  async update(id: string, input: UpdateKeyInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedKey> {
    const now = this.#clock.now()
    const before = await this.#find(id)
    if (before.revokedAt !== null) throw new KeyRevokedError(id, 'changed')
    let event: KeyEvent | undefined
    const changes = keyChanges(before, input, now, planChoice(await this.#plans.list()))
    const customerChanged = changes.plan !== undefined || changes.perMinute !== undefined || changes.perDay !== undefined
    const owner = customerChanged ? await this.#customers.find(before.customerId!) : undefined
    const after = await this.#store.update(id, changes, (from, to) => {
      event = keyEvent('key.update', actor, to, now, fieldChanges(from, to))
      const entries = [auditEntry(event, origin)]
      const limitsOf = ({ plan, perMinute, perDay, perMonth }: ApiKeyRecord) => ({ plan, perMinute, perDay, perMonth })
      const changed = customerFieldChanges(limitsOf(from), limitsOf(to))
      if (owner !== undefined && Object.keys(changed).length > 0)
        entries.push(auditEntry(customerEvent('customer.update', actor, owner, now, changed), origin))
      return entries
    })
    if (after === undefined || event === undefined) throw await this.#refusal(id, 'changed')
    this.#keyChanged(id)
    if (customerChanged) this.#customerChanged()
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
   * Lifts the ban of the key's customer (all its keys), if any, and clears its refusal count;
   * unbanning a key that is not banned succeeds. The counters are not in the database: the audit
   * entry is written right after.
   */
  async unban(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedKey> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    await this.#limits.unban(key.counterId, now)
    const event = keyEvent('key.unban', actor, key, now)
    await this.#audit.append(auditEntry(event, origin))
    return { view: await this.#views.one(key, now), event }
  }

  /** The use of both windows now by the key's customer and its ban, as `GET /v1/rate_limit` answers it, with the key's id. */
  async usage(id: string): Promise<{ id: string } & RateLimitStatus> {
    const now = this.#clock.now()
    const key = await this.#find(id)
    return { id, ...rateLimitStatus(key.plan, await this.#planBook.limitsOf(key), now, await this.#limits.usage(key.counterId, now)) }
  }

  /** The key with this id, with its customer (given one now if the previous release made it); an id not of our shape is not looked up. */
  async #find(id: string): Promise<ApiKeyRecord> {
    let key = looksLikeKeyId(id) ? await this.#store.get(id) : undefined
    if (key?.customerId === null && (await this.#customers.adoptKeys()) > 0) key = await this.#store.get(id)
    if (key === undefined) throw new KeyNotFoundError(id)
    return key
  }

  /** Why a change the store refused did not apply: the key was revoked meanwhile, or is gone. */
  async #refusal(id: string, operation: 'changed' | 'rotated'): Promise<Error> {
    return (await this.#store.get(id)) === undefined ? new KeyNotFoundError(id) : new KeyRevokedError(id, operation)
  }
}
