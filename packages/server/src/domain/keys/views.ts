import type { Limits, Scope } from '@animal-store/contract'
import type { ApiKeyRecord } from '../../storage/keys/types.ts'
import type { PlanBook } from '../plans/book.ts'
import type { KeyLimitState, KeyUsage } from './limits.ts'

/** A key as `keys list --json` and the operator API's Key show it: never its secret nor its hash. */
export interface KeyView {
  id: string
  prefix: string
  name: string | null
  plan: string
  limits: Limits
  scopes: Scope[]
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

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The view of `key` at `now`, with its use of its windows, its ban and its last use. */
export function viewKey(key: ApiKeyRecord, limits: Limits, usage: KeyUsage, now: number, lastUsedAt: string | null): KeyView {
  const previous = key.previousSecretExpiresAt
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    plan: key.plan,
    limits,
    scopes: [...key.scopes],
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    previousSecretExpiresAt: previous !== null && previous >= now ? iso(previous) : null,
    bannedUntil: iso(usage.bannedUntil),
    usage: { minute: usage.minuteUsed, day: usage.dayUsed },
    lastUsedAt
  }
}

/** The start of the last minute each of the keys was used in, as ISO 8601; keys never used are absent. */
export type LastUseLookup = (keyIds: readonly string[]) => Promise<Map<string, string>>

/** Keys as operators see them: each with its use of its windows and its ban (the counters), and its last use (the usage history). */
export class KeyViews {
  readonly #limits: KeyLimitState
  readonly #lastUsed: LastUseLookup
  readonly #plans: PlanBook

  constructor(limits: KeyLimitState, lastUsed: LastUseLookup, plans: PlanBook) {
    this.#limits = limits
    this.#lastUsed = lastUsed
    this.#plans = plans
  }

  /** The views of `keys` at `now`, in their order: one usage read per key, one last-use read for all. */
  async of(keys: readonly ApiKeyRecord[], now: number): Promise<KeyView[]> {
    const [usages, lastUsed, limits] = await Promise.all([
      Promise.all(keys.map((key) => this.#limits.usage(key.id, now))),
      this.#lastUsed(keys.map((key) => key.id)),
      Promise.all(keys.map(async (key) => this.#plans.limitsOf(key)))
    ])
    return keys.map((key, i) => viewKey(key, limits[i]!, usages[i]!, now, lastUsed.get(key.id) ?? null))
  }

  async one(key: ApiKeyRecord, now: number): Promise<KeyView> {
    return (await this.of([key], now))[0]!
  }
}
