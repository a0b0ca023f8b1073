import { ADMIN_PAGE_LIMIT_DEFAULT, MAX_BANNED_KEYS, type KeyState, type ListKeysQuery, type UsageBucket } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { KeyPageQuery } from '../../storage/keys/page.ts'
import type { ApiKeyRecord, KeyStore } from '../../storage/keys/types.ts'
import { decodeKeyCursor, encodeKeyCursor } from '../admin-cursors.ts'
import { KeyNotFoundError } from './errors.ts'
import type { KeyViews } from './views.ts'
import { type CustomerCounters } from '../customers/counters.ts'
import { looksLikeKeyId } from './secret.ts'
import { type KeyView } from './views.ts'
import type { UsageRangeInput } from '../usage/range.ts'
import type { TopKeysInput, UsageService } from '../usage/service.ts'
import { countsOf } from '../../storage/usage/counts.ts'
import type { UsageCounts } from '../../storage/usage/types.ts'

/** A key and its requests by outcome over a range. */
export interface TopKey extends UsageCounts {
  key: KeyView
}

/**
 * The keys as the operator API lists them: filtered, paged newest first, banned now, most used.
 * A key's state is one of, in this order: revoked, expired, banned (now), active.
 */
export class KeyDirectory {
  readonly #store: KeyStore
  readonly #clock: Clock
  readonly #limits: CustomerCounters
  readonly #views: KeyViews
  readonly #usage: Pick<UsageService, 'keyUsage' | 'topKeys'>

  constructor(
    store: KeyStore,
    clock: Clock,
    parts: { limits: CustomerCounters; views: KeyViews; usage: Pick<UsageService, 'keyUsage' | 'topKeys'> }
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
    const { search, plan, customer, state, cursor } = query
    const limit = query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT
    const filters = { search, plan, customer, state }
    const before = cursor === undefined ? undefined : decodeKeyCursor(cursor, filters)
    const byState = await this.#stateFilter(state, now)
    if (byState === undefined) return { keys: [], next: undefined }
    // One more than asked for tells whether a next page exists: the last page links to none.
    const found = await this.#store.page({
      search: search?.toLowerCase(),
      plan,
      customerId: customer,
      ...byState,
      now,
      before,
      limit: limit + 1
    })
    const page = found.slice(0, limit)
    const last = page.at(-1)
    return {
      keys: await this.#views.of(page, now),
      next: found.length > limit && last !== undefined ? encodeKeyCursor(filters, last) : undefined
    }
  }

  /** Every key banned now (revoked or not: its customer is), the soonest ban to end first; at most MAX_BANNED_KEYS. */
  async banned(): Promise<KeyView[]> {
    const now = this.#clock.now()
    const bans = await this.#limits.bans(now)
    if (bans.length === 0) return []
    const until = new Map(bans.map((ban) => [ban.counterId, ban.bannedUntil]))
    const keys = await this.#store.page({ onlyCounters: [...until.keys()], now, limit: MAX_BANNED_KEYS })
    const order = (key: ApiKeyRecord) => until.get(key.counterId) ?? 0
    keys.sort((a, b) => order(a) - order(b) || (a.id < b.id ? -1 : 1))
    return this.#views.of(keys, now)
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
    return found.map(({ total }, i) => ({ key: views[i]!, ...countsOf(total) }))
  }

  /** The store's filter for a state; undefined when no key can be in it (banned, and none is). */
  async #stateFilter(
    state: KeyState | undefined,
    now: number
  ): Promise<Pick<KeyPageQuery, 'status' | 'onlyCounters' | 'exceptCounters'> | undefined> {
    if (state === undefined) return {}
    if (state === 'revoked' || state === 'expired') return { status: state }
    const banned = (await this.#limits.bans(now)).map((ban) => ban.counterId)
    if (state === 'banned') return banned.length === 0 ? undefined : { status: 'live', onlyCounters: banned }
    return { status: 'live', exceptCounters: banned.length === 0 ? undefined : banned }
  }
}
