import type { Clock } from '../base/clock.ts'
import type { Maybe } from '../base/maybe.ts'
import type { KeyMatch, KeyStore } from '../storage/types.ts'
import { hashSecret } from './keys.ts'

interface Entry {
  key: KeyMatch | undefined
  fetchedAt: number
}

/**
 * Key lookups, cached for `ttlMs` (positive and negative answers alike) so the hot path
 * rarely touches the database. Entries are keyed by the secret itself, so a hit costs no
 * hash (the secret is in this process's memory for the request anyway, and never leaves it);
 * the database is asked by hash. A revocation, change or rotation made anywhere is seen within `ttlMs`; the
 * cache is bounded, dropping its oldest entries first.
 */
export class KeyCache {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #ttlMs: number
  readonly #maxEntries: number
  readonly #entries = new Map<string, Entry>()

  constructor(store: KeyStore, clock: Clock, options: { ttlMs?: number; maxEntries?: number } = {}) {
    this.#store = store
    this.#clock = clock
    this.#ttlMs = options.ttlMs ?? 2000
    this.#maxEntries = options.maxEntries ?? 10_000
  }

  /** A hit answers synchronously (no promise on the hot path); a miss asks the store. */
  find(secret: string): Maybe<KeyMatch | undefined> {
    const now = this.#clock.now()
    const cached = this.#entries.get(secret)
    if (cached !== undefined && now - cached.fetchedAt < this.#ttlMs && now >= cached.fetchedAt) return cached.key
    return this.#fetch(secret, now)
  }

  async #fetch(secret: string, now: number): Promise<KeyMatch | undefined> {
    const key = await this.#store.findByHash(hashSecret(secret))
    this.#entries.delete(secret)
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(secret, { key, fetchedAt: now })
    return key
  }
}
