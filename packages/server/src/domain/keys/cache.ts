import type { Clock } from '../../base/clock.ts'
import type { Maybe } from '../../base/maybe.ts'
import type { KeyMatch, KeyStore } from '../../storage/keys/types.ts'
import { hashSecret } from './secret.ts'

interface Entry {
  key: KeyMatch | undefined
  fetchedAt: number
}

/**
 * Key lookups, cached for `ttlMs` (positive and negative answers alike) so the hot path
 * rarely touches the database. Entries are keyed by the secret itself, so a hit costs no
 * hash (the secret is in this process's memory for the request anyway, and never leaves it);
 * the database is asked by hash. A revocation, change or rotation made anywhere is seen within
 * `ttlMs`, and at once when this process made it (`forget`). The cache is bounded, dropping its
 * oldest entries first.
 */
export class KeyCache {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #ttlMs: number
  readonly #maxEntries: number
  readonly #entries = new Map<string, Entry>()
  /** The cached secrets of each key found (its current and previous one), so `forget` can find them by id. */
  readonly #secretsOf = new Map<string, Set<string>>()
  /** Counts `forget` calls: a lookup that overlapped one may have read the key as it was before. */
  #forgets = 0

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

  /** Drops every cached secret of the key, so its next lookup reads the store: the key changed. */
  forget(keyId: string): void {
    this.#forgets++
    for (const secret of this.#secretsOf.get(keyId) ?? []) this.#entries.delete(secret)
    this.#secretsOf.delete(keyId)
  }

  /** Drops every cached key, so each next lookup reads the store: a customer's plan or numbers changed (all its keys). */
  forgetAll(): void {
    this.#forgets++
    this.#entries.clear()
    this.#secretsOf.clear()
  }

  async #fetch(secret: string, now: number): Promise<KeyMatch | undefined> {
    const forgets = this.#forgets
    const key = await this.#store.findByHash(hashSecret(secret))
    // Answered, but not kept: it may have been read before a change this process just made.
    if (forgets !== this.#forgets) return key
    this.#drop(secret)
    if (this.#entries.size >= this.#maxEntries) this.#drop(this.#entries.keys().next().value!)
    this.#entries.set(secret, { key, fetchedAt: now })
    if (key !== undefined) {
      const secrets = this.#secretsOf.get(key.id)
      if (secrets === undefined) this.#secretsOf.set(key.id, new Set([secret]))
      else secrets.add(secret)
    }
    return key
  }

  #drop(secret: string): void {
    const key = this.#entries.get(secret)?.key
    if (!this.#entries.delete(secret) || key === undefined) return
    const secrets = this.#secretsOf.get(key.id)
    secrets?.delete(secret)
    if (secrets?.size === 0) this.#secretsOf.delete(key.id)
  }
}
