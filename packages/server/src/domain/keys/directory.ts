import { ADMIN_PAGE_LIMIT_DEFAULT, MAX_BANNED_KEYS, type KeyState, type ListKeysQuery, type UsageBucket } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { KeyPageQuery } from '../../storage/keys/page.ts'
import type { ApiKeyRecord, KeyStore } from '../../storage/keys/types.ts'
import { decodeKeyCursor, encodeKeyCursor } from '../admin-cursors.ts'
import { KeyNotFoundError } from './errors.ts'
import type { KeyViews } from './views.ts'
import { type KeyLimitState } from './limits.ts'
import { looksLikeKeyId } from './secret.ts'
import { type KeyView } from './views.ts'
import type { UsageRangeInput } from '../usage/range.ts'
import type { TopKeysInput, UsageService } from '../usage/service.ts'

/** A key and its requests by outcome over a range. */
export interface TopKey {
  key: KeyView
  allowed: number
  rateLimited: number
  banned: number
}

/**
 * The keys as the operator API lists them: filtered, paged newest first, banned now, most used.
 * A key's state is one of, in this order: revoked, expired, banned (now), active.
 */
export class KeyDirectory {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #limits: KeyLimitState
  readonly #views: KeyViews
  readonly #usage: Pick<UsageService, 'keyUsage' | 'topKeys'>

  constructor(
    store: KeyStore,
    clock: Clock,
    parts: { limits: KeyLimitState; views: KeyViews; usage: Pick<UsageService, 'keyUsage' | 'topKeys'> }
  ) {
    this.#store = store
    this.#clock = clock
    this.#limits = parts.limits
    this.#views = parts.views
    this.#usage = parts.usage
  }

  /** The key's requests by outcome in every bucket of the range; KeyNotFoundError for an unknown id. */
  async usage(id: string, range: UsageRangeInput): Promise<UsageBucket[]> {
    if (!looksLikeKeyId(id) || (await this.#store.get(id)) === undefined) throw new KeyNotFoundError(id)
    return this.#usage.keyUsage(id, range)
  }

  /** A page of the keys that match, newest first, and the cursor of the next page while more follow. */
  async page(query: ListKeysQuery): Promise<{ keys: KeyView[]; next: string | undefined }> {
    const now = this.#clock.now()
    const { search, plan, state, cursor } = query
    const limit = query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT
    const filters = { search, plan, state }
    const before = cursor === undefined ? undefined : decodeKeyCursor(cursor, filters)
    const byState = await this.#stateFilter(state, now)
    if (byState === undefined) return { keys: [], next: undefined }
    // One more than asked for tells whether a next page exists: the last page links to none.
    const found = await this.#store.page({ search: search?.toLowerCase(), plan, ...byState, now, before, limit: limit + 1 })
    const page = found.slice(0, limit)
    const last = page.at(-1)
    return {
      keys: await this.#views.of(page, now),
      next: found.length > limit && last !== undefined ? encodeKeyCursor(filters, last) : undefined
    }
  }

  /** Every key banned now (revoked or not), the soonest ban to end first; at most MAX_BANNED_KEYS. */
  async banned(): Promise<KeyView[]> {
    const now = this.#clock.now()
    const bans = (await this.#limits.bans(now)).sort((a, b) => a.bannedUntil - b.bannedUntil || (a.keyId < b.keyId ? -1 : 1))
    const keys = await Promise.all(bans.slice(0, MAX_BANNED_KEYS).map((ban) => this.#store.get(ban.keyId)))
    return this.#views.of(
      keys.filter((key): key is ApiKeyRecord => key !== undefined),
      now
    )
  }

  /** The keys with the most requests by `by` over the range, most first, each with its view. */
  async top(input: TopKeysInput): Promise<TopKey[]> {
    const totals = await this.#usage.topKeys(input)
    const now = this.#clock.now()
    const keys = await Promise.all(totals.map((total) => this.#store.get(total.keyId)))
    const found = totals.flatMap((total, i) => (keys[i] === undefined ? [] : [{ total, key: keys[i] }]))
    const views = await this.#views.of(
      found.map(({ key }) => key),
      now
    )
    return found.map(({ total }, i) => ({ key: views[i]!, allowed: total.allowed, rateLimited: total.rateLimited, banned: total.banned }))
  }

  /** The store's filter for a state; undefined when no key can be in it (banned, and none is). */
  async #stateFilter(
    state: KeyState | undefined,
    now: number
  ): Promise<Pick<KeyPageQuery, 'status' | 'onlyIds' | 'exceptIds'> | undefined> {
    if (state === undefined) return {}
    if (state === 'revoked' || state === 'expired') return { status: state }
    const banned = (await this.#limits.bans(now)).map((ban) => ban.keyId)
    if (state === 'banned') return banned.length === 0 ? undefined : { status: 'live', onlyIds: banned }
    return { status: 'live', exceptIds: banned.length === 0 ? undefined : banned }
  }
}
