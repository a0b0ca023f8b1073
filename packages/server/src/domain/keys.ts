import { createHash, randomBytes, randomInt } from 'node:crypto'
import { isPlanName, PLAN_NAMES, PLANS, type Limits, type PlanName } from '@animal-store/contract'
import type { Clock } from '../base/clock.ts'
import type { ApiKeyRecord, KeyStore } from '../storage/types.ts'

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

export class KeyInputError extends Error {
  override name = 'KeyInputError'
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

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function viewKey(key: ApiKeyRecord, usage: KeyUsage): KeyView {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    limits: limitsOf(key),
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    bannedUntil: iso(usage.bannedUntil),
    usage: { minute: usage.minuteUsed, day: usage.dayUsed }
  }
}

function positiveLimit(name: string, value: number | undefined): number | null {
  if (value === undefined) return null
  if (!Number.isSafeInteger(value) || value < 1) throw new KeyInputError(`${name} must be a whole number of at least 1`)
  return value
}

/** Key administration: create (secret shown once), list, revoke, unban. */
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
    let expiresAt: number | null = null
    if (input.expiresAt !== undefined) {
      expiresAt = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(input.expiresAt) ? Date.parse(input.expiresAt) : Number.NaN
      if (Number.isNaN(expiresAt))
        throw new KeyInputError(
          `--expires-at must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z (got ${JSON.stringify(input.expiresAt)})`
        )
      if (expiresAt <= now) throw new KeyInputError('--expires-at must be in the future')
    }
    const name = input.name === undefined ? null : input.name
    if (name !== null && (name.length > 200 || /[\p{Cc}]/u.test(name)))
      throw new KeyInputError('--name must be at most 200 characters with no control characters')
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
      revokedAt: null
    }
    await this.#store.create(record, hashSecret(secret))
    return { key: secret, view: viewKey(record, NO_USAGE) }
  }

  async list(): Promise<KeyView[]> {
    const now = this.#clock.now()
    const keys = await this.#store.list()
    return Promise.all(keys.map(async (key) => viewKey(key, await this.#limits.usage(key.id, now))))
  }

  async revoke(id: string): Promise<boolean> {
    return this.#store.revoke(id, this.#clock.now())
  }

  /** Lifts the key's ban and clears its refusal count; false when no key has this id. */
  async unban(id: string): Promise<boolean> {
    if ((await this.#store.get(id)) === undefined) return false
    await this.#limits.unban(id, this.#clock.now())
    return true
  }
}
