import type { Limits, Scope } from '@animal-store/contract'
import type { ApiKeyRecord } from '../../storage/keys/types.ts'
import type { PlanBook } from '../plans/book.ts'
import type { CustomerCounters, WindowUsage } from '../customers/counters.ts'

/** A key as `keys list --json` and the operator API's Key show it: never its secret nor its hash. */
export interface KeyView {
  id: string
  prefix: string
  name: string | null
  customerId: string
  plan: string
  limits: Limits
  scopes: Scope[]
  createdAt: string
  expiresAt: string | null
  revokedAt: string | null
  /** When the secret replaced by the latest rotation stops working, while it still works. */
  previousSecretExpiresAt: string | null
  /** The ban of the key's customer. */
  bannedUntil: string | null
  /** Requests the key's customer took in the current UTC minute, day and month (embedded store: up to a second behind). */
  usage: { minute: number; day: number; month: number }
  /** The start of the last UTC minute the key was used in (its usage history); null if never. */
  lastUsedAt: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The view of `key` at `now`, with its use of its windows, its ban and its last use. */
export function viewKey(key: ApiKeyRecord, limits: Limits, usage: WindowUsage, now: number, lastUsedAt: string | null): KeyView {
  const previous = key.previousSecretExpiresAt
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    // Views are made of keys with a customer (KeyViews adopts any without one first).
    customerId: key.customerId!,
    plan: key.plan,
    limits,
    scopes: [...key.scopes],
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    previousSecretExpiresAt: previous !== null && previous >= now ? iso(previous) : null,
    bannedUntil: iso(usage.bannedUntil),
    usage: { minute: usage.minuteUsed, day: usage.dayUsed, month: usage.monthUsed },
    lastUsedAt
  }
}

/** The start of the last minute each of the keys was used in, as ISO 8601; keys never used are absent. */
export type LastUseLookup = (keyIds: readonly string[]) => Promise<Map<string, string>>

/** What KeyViews needs to give a customer to a key the previous release made, and read it again. */
export interface Adoption {
  adoptKeys(): Promise<number>
  get(keyId: string): Promise<ApiKeyRecord | undefined>
}

/**
 * Keys as operators see them: each with its customer's use of its windows and ban (the
 * counters), and its last use (the usage history).
 */
export class KeyViews {
  readonly #limits: CustomerCounters
  readonly #lastUsed: LastUseLookup
  readonly #plans: PlanBook
  readonly #adoption: Adoption

  constructor(limits: CustomerCounters, lastUsed: LastUseLookup, plans: PlanBook, adoption: Adoption) {
    this.#limits = limits
    this.#lastUsed = lastUsed
    this.#plans = plans
    this.#adoption = adoption
  }

  /** The views of `keys` at `now`, in their order: one usage read per key, one last-use read for all. */
  async of(found: readonly ApiKeyRecord[], now: number): Promise<KeyView[]> {
    const keys = await this.#adopted(found)
    const [usages, lastUsed, limits] = await Promise.all([
      Promise.all(keys.map((key) => this.#limits.usage(key.counterId, now))),
      this.#lastUsed(keys.map((key) => key.id)),
      Promise.all(keys.map(async (key) => this.#plans.limitsOf(key)))
    ])
    return keys.map((key, i) => viewKey(key, limits[i]!, usages[i]!, now, lastUsed.get(key.id) ?? null))
  }

  async one(key: ApiKeyRecord, now: number): Promise<KeyView> {
    return (await this.of([key], now))[0]!
  }

  /** `keys`, each with a customer: a key the previous release made during a rolling upgrade gets one now. */
  async #adopted(keys: readonly ApiKeyRecord[]): Promise<readonly ApiKeyRecord[]> {
    if (keys.every((key) => key.customerId !== null)) return keys
    await this.#adoption.adoptKeys()
    return Promise.all(keys.map(async (key) => (key.customerId === null ? ((await this.#adoption.get(key.id)) ?? key) : key)))
  }
}
