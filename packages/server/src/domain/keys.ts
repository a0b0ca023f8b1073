import { PLANS, type Limits, type PlanName } from '@animal-store/contract'
import type { ApiKeyRecord } from '../storage/types.ts'
import { randomId, randomSecret, SECRET_LENGTH, sha256Hex } from './secrets.ts'

/** The recognisable prefix of every secret, so secret scanners can find leaked keys. */
const KEY_PREFIX = 'as_live_'
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`)
const ID_SHAPE = /^key_[0-9A-Za-z]{16}$/

export function generateSecret(): string {
  return randomSecret(KEY_PREFIX)
}

/** The first characters of a secret, safe to show. */
export const prefixOf = (secret: string) => secret.slice(0, KEY_PREFIX.length + 4)

export function generateId(): string {
  return randomId('key_')
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret)
}

/** True when the text has the shape of a key id we issue: anything else names no key. */
export function looksLikeKeyId(id: string): boolean {
  return ID_SHAPE.test(id)
}

/** True when the text has the shape of a key we issue; anything else is refused before any lookup. */
export function looksLikeKey(secret: string): boolean {
  return KEY_SHAPE.test(secret)
}

/** A key as `keys list --json` and the operator API's Key show it: never its secret nor its hash. */
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
  /** The start of the last UTC minute the key was used in (its usage history); null if never. */
  lastUsedAt: string | null
}

/** A key's use of its windows at some moment, and its ban. */
export interface KeyUsage {
  minuteUsed: number
  dayUsed: number
  bannedUntil: number | null
}

/** What the rate limiter knows of a key, for the key service. */
export interface KeyLimitState {
  usage(keyId: string, now: number): Promise<KeyUsage>
  unban(keyId: string, now: number): Promise<void>
  /** Every key banned at `now`, in no order. */
  bans(now: number): Promise<Array<{ keyId: string; bannedUntil: number }>>
}

/** The limits a key runs under: its own numbers where it has them, else its plan's. */
export function limitsOf(key: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): Limits {
  const plan = PLANS[key.plan]
  const perMinute = key.perMinute ?? plan?.perMinute
  const perDay = key.perDay ?? plan?.perDay
  if (perMinute === undefined || perDay === undefined) throw new Error(`key on plan ${key.plan} has no limits`)
  return { perMinute, perDay }
}

/** A key never used: what a new key's view shows, without asking the counters. */
export const NO_USAGE: KeyUsage = { minuteUsed: 0, dayUsed: 0, bannedUntil: null }

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The view of `key` at `now`, with its use of its windows, its ban and its last use. */
export function viewKey(key: ApiKeyRecord, usage: KeyUsage, now: number, lastUsedAt: string | null): KeyView {
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
    usage: { minute: usage.minuteUsed, day: usage.dayUsed },
    lastUsedAt
  }
}
