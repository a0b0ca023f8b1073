import type { ApiKeyRecord } from '../storage/types.ts'
import { viewKey, type KeyLimitState, type KeyView } from './keys.ts'

/** The start of the last minute each of the keys was used in, as ISO 8601; keys never used are absent. */
export type LastUseLookup = (keyIds: readonly string[]) => Promise<Map<string, string>>

/** Keys as operators see them: each with its use of its windows and its ban (the counters), and its last use (the usage history). */
export class KeyViews {
  readonly #limits: KeyLimitState
  readonly #lastUsed: LastUseLookup

  constructor(limits: KeyLimitState, lastUsed: LastUseLookup) {
    this.#limits = limits
    this.#lastUsed = lastUsed
  }

  /** The views of `keys` at `now`, in their order: one usage read per key, one last-use read for all. */
  async of(keys: readonly ApiKeyRecord[], now: number): Promise<KeyView[]> {
    const [usages, lastUsed] = await Promise.all([
      Promise.all(keys.map((key) => this.#limits.usage(key.id, now))),
      this.#lastUsed(keys.map((key) => key.id))
    ])
    return keys.map((key, i) => viewKey(key, usages[i]!, now, lastUsed.get(key.id) ?? null))
  }

  async one(key: ApiKeyRecord, now: number): Promise<KeyView> {
    return (await this.of([key], now))[0]!
  }
}
