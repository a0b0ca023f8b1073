import { createHash, randomBytes, randomInt } from 'node:crypto'
import { isPlanName, PLAN_NAMES, PLANS, type Limits, type PlanName, type RateLimitStatus } from '@animal-store/contract'
import type { Clock } from '../base/clock.ts'
import type { ApiKeyRecord, KeyStore } from '../storage/types.ts'
import { checkName, graceSeconds, keyChanges, KeyInputError, parseExpiry, positiveLimit, type UpdateKeyInput } from './key-changes.ts'
import { rateLimitStatus } from './rate-limit-policy.ts'

/** The recognisable prefix of every secret, so secret scanners can find leaked keys. */
const KEY_PREFIX = 'as_live_'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** 32 random bytes (256 bits) written in base62 always fit in 43 characters. */
const SECRET_LENGTH = 43
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`)

function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`)
  let out = ''
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return out.padStart(length, '0')
}

export function generateSecret(): string {
  return KEY_PREFIX + base62(randomBytes(32), SECRET_LENGTH)
}

function generateId(): string {
  let id = 'key_'
  for (let i = 0; i < 16; i++) id += BASE62[randomInt(62)]
  return id
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** True when the text has the shape of a key we issue; anything else is refused before any lookup. */
export function looksLikeKey(secret: string): boolean {
  return KEY_SHAPE.test(secret)
}

export interface CreateKeyInput {
  plan: string
  name?: string | undefined
  perMinute?: number | undefined
  perDay?: number | undefined
  expiresAt?: string | undefined
}

export interface KeyView {
  id: string
  prefix: string
  name: string | null
  plan: PlanName
  limits: Limits
  createdAt: string
  expiresAt: string | null
  revokedAt: string | null
  /** When the secret replaced by the latest rotation stops working, while it still works. */
  previousSecretExpiresAt: string | null
  bannedUntil: string | null
  /** Requests taken in the current UTC minute and day (embedded store: up to a second behind). */
  usage: { minute: number; day: number }
}

/** A key's use of its windows at some moment, and its ban. */
export interface KeyUsage {
  minuteUsed: number
  dayUsed: number
  bannedUntil: number | null
}

/** What the rate limiter knows of a key, for `keys list` and `keys unban`. */
export interface KeyLimitState {
  usage(keyId: string, now: number): Promise<KeyUsage>
  unban(keyId: string, now: number): Promise<void>
}

/** The limits a key runs under: its own numbers where it has them, else its plan's. */
export function limitsOf(key: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): Limits {
  const plan = PLANS[key.plan]
  const perMinute = key.perMinute ?? plan?.perMinute
  const perDay = key.perDay ?? plan?.perDay
  if (perMinute === undefined || perDay === undefined) throw new Error(`key on plan ${key.plan} has no limits`)
  return { perMinute, perDay }
}

const NO_USAGE: KeyUsage = { minuteUsed: 0, dayUsed: 0, bannedUntil: null }

/** `value`, or the refusal of an unknown key id. */
function found<T>(value: T | undefined, id: string): T {
  if (value === undefined) throw new KeyInputError(`no key has id ${JSON.stringify(id)}`)
  return value
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function viewKey(key: ApiKeyRecord, usage: KeyUsage, now: number): KeyView {
  const previous = key.previousSecretExpiresAt
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    limits: limitsOf(key),
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    previousSecretExpiresAt: previous !== null && previous >= now ? iso(previous) : null,
    bannedUntil: iso(usage.bannedUntil),
    usage: { minute: usage.minuteUsed, day: usage.dayUsed }
  }
}

/** Key administration: create and rotate (secret shown once), list, update, usage, revoke, unban. */
export class KeyService {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #limits: KeyLimitState

  constructor(store: KeyStore, clock: Clock, limits: KeyLimitState) {
    this.#store = store
    this.#clock = clock
    this.#limits = limits
  }

  async create(input: CreateKeyInput): Promise<{ key: string; view: KeyView }> {
    if (!isPlanName(input.plan))
      throw new KeyInputError(`--plan must be one of ${PLAN_NAMES.join(', ')} (got ${JSON.stringify(input.plan)})`)
    const perMinute = positiveLimit('--per-minute', input.perMinute)
    const perDay = positiveLimit('--per-day', input.perDay)
    if (input.plan === 'enterprise' && (perMinute === null || perDay === null)) {
      throw new KeyInputError('an enterprise key needs both --per-minute and --per-day')
    }
    const now = this.#clock.now()
    const expiresAt = input.expiresAt === undefined ? null : parseExpiry(input.expiresAt, now)
    const name = input.name === undefined ? null : checkName(input.name)
    const secret = generateSecret()
    const record: ApiKeyRecord = {
      id: generateId(),
      prefix: secret.slice(0, KEY_PREFIX.length + 4),
      name,
      plan: input.plan,
      perMinute,
      perDay,
      createdAt: now,
      expiresAt,
      revokedAt: null,
      previousSecretExpiresAt: null
    }
    await this.#store.create(record, hashSecret(secret))
    return { key: secret, view: viewKey(record, NO_USAGE, now) }
  }

  async list(): Promise<KeyView[]> {
    const now = this.#clock.now()
    const keys = await this.#store.list()
    return Promise.all(keys.map(async (key) => viewKey(key, await this.#limits.usage(key.id, now), now)))
  }

  async revoke(id: string): Promise<boolean> {
    return this.#store.revoke(id, this.#clock.now())
  }

  /** Changes the key in place (same secret); its usage and any ban stay. Bad input changes nothing. */
  async update(id: string, input: UpdateKeyInput): Promise<KeyView> {
    const now = this.#clock.now()
    const changes = keyChanges(found(await this.#store.get(id), id), input, now)
    const updated = found(await this.#store.update(id, changes), id)
    return viewKey(updated, await this.#limits.usage(id, now), now)
  }

  /** A new secret for the key (same id, plan, usage and ban); the old one works for `grace` more seconds. */
  async rotate(id: string, grace: number): Promise<{ key: string; view: KeyView }> {
    const now = this.#clock.now()
    const previousExpiresAt = now + graceSeconds(grace) * 1000
    if (found(await this.#store.get(id), id).revokedAt !== null)
      throw new KeyInputError(`key ${id} is revoked; revoked keys cannot be rotated`)
    const secret = generateSecret()
    const rotation = { secretHash: hashSecret(secret), prefix: secret.slice(0, KEY_PREFIX.length + 4), previousExpiresAt }
    const rotated = found(await this.#store.rotate(id, rotation), id)
    return { key: secret, view: viewKey(rotated, await this.#limits.usage(id, now), now) }
  }

  /** The key's use of both windows now and its ban, as `GET /v1/rate_limit` answers it, with its id. */
  async usage(id: string): Promise<{ id: string } & RateLimitStatus> {
    const now = this.#clock.now()
    const key = found(await this.#store.get(id), id)
    return { id, ...rateLimitStatus(key.plan, limitsOf(key), now, await this.#limits.usage(id, now)) }
  }

  /** Lifts the key's ban and clears its refusal count; false when no key has this id. */
  async unban(id: string): Promise<boolean> {
    if ((await this.#store.get(id)) === undefined) return false
    await this.#limits.unban(id, this.#clock.now())
    return true
  }
}
