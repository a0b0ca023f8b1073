import { DAY_MS, MINUTE_MS, windowStart } from '../domain/rate-limit-policy.ts'
import type { CounterRow } from '../storage/types.ts'
import { RecentlySeen } from './recently-seen.ts'
import { ADDRESS_PREFIX, type ConsumeRequest, type ConsumeResult, type CounterStore, type SubjectUsage } from './types.ts'

/** What a stored row means at `now`: counts of windows that have ended are zero, an ended ban is none. */
export function usageAt(row: CounterRow | undefined, now: number): SubjectUsage {
  if (row === undefined) return { minuteUsed: 0, dayUsed: 0, bannedUntil: null }
  return {
    minuteUsed: row.minuteStart === windowStart(now, MINUTE_MS) ? row.minuteUsed : 0,
    dayUsed: row.dayStart === windowStart(now, DAY_MS) ? row.dayUsed : 0,
    bannedUntil: row.bannedUntil !== null && row.bannedUntil > now ? row.bannedUntil : null
  }
}

export interface MemoryCounterOptions {
  /** The most client addresses kept (RATE_LIMIT_MAX_ADDRESSES); past it the least recently seen is forgotten. */
  maxAddresses?: number
  /** Remember changed and forgotten rows for a persistence layer to take (`takeChanges`). */
  trackChanges?: boolean
  /** Told synchronously when a ban starts or is lifted, so it can be made durable at once. */
  onBanChange?: (row: CounterRow) => void
}

/** What changed since the last `takeChanges`: rows to write, subjects to delete. */
export interface CounterChanges {
  rows: CounterRow[]
  forgotten: string[]
}

/**
 * Counters in this process's memory. `consume` runs to completion without yielding, so it
 * is atomic by construction. Keys' rows are bounded by the keys issued; addresses' rows by
 * `maxAddresses`, kept in least-recently-seen order (a request moves its address to the
 * end, a new address past the cap drops the first): O(1) per request, never a walk. A
 * forgotten address starts afresh when it is seen again, as with nginx's `limit_req_zone`.
 */
export class MemoryCounterStore implements CounterStore {
  readonly #keys = new Map<string, CounterRow>()
  readonly #addresses = new RecentlySeen<CounterRow>()
  readonly #maxAddresses: number
  readonly #dirty: Set<string> | undefined
  readonly #forgotten: Set<string> | undefined
  readonly #onBanChange: ((row: CounterRow) => void) | undefined
  /** The day whose start last pruned keys' rows: keys are walked once a day, not per request. */
  #keysPrunedFor = 0

  constructor(options: MemoryCounterOptions = {}) {
    this.#maxAddresses = options.maxAddresses ?? Number.POSITIVE_INFINITY
    this.#dirty = options.trackChanges === true ? new Set() : undefined
    this.#forgotten = options.trackChanges === true ? new Set() : undefined
    this.#onBanChange = options.onBanChange
  }

  /** Rows of client addresses held now. */
  get addressCount(): number {
    return this.#addresses.size
  }

  #find(subject: string): CounterRow | undefined {
    return this.#keys.get(subject) ?? this.#addresses.peek(subject)
  }

  #forget(map: { delete(subject: string): unknown }, subject: string): void {
    map.delete(subject)
    this.#dirty?.delete(subject)
    this.#forgotten?.add(subject)
  }

  /** The subject's row, created or moved to the most recently seen end. */
  #touch(subject: string, minuteStart: number, dayStart: number): CounterRow {
    const isAddress = subject.startsWith(ADDRESS_PREFIX)
    const row = isAddress ? this.#addresses.see(subject) : this.#keys.get(subject)
    if (row !== undefined) return row
    this.#forgotten?.delete(subject)
    if (isAddress && this.#addresses.size >= this.#maxAddresses) {
      const forgotten = this.#addresses.oldest()!.key
      this.#dirty?.delete(forgotten)
      this.#forgotten?.add(forgotten)
      return Object.assign(this.#addresses.recycleOldest(subject), {
        subject,
        minuteStart,
        minuteUsed: 0,
        refusals: 0,
        dayStart,
        dayUsed: 0,
        bannedUntil: null
      })
    }
    const created: CounterRow = { subject, minuteStart, minuteUsed: 0, refusals: 0, dayStart, dayUsed: 0, bannedUntil: null }
    if (isAddress) this.#addresses.add(subject, created)
    else this.#keys.set(subject, created)
    return created
  }

  #row(subject: string, now: number): CounterRow {
    const minuteStart = windowStart(now, MINUTE_MS)
    const dayStart = windowStart(now, DAY_MS)
    const row = this.#touch(subject, minuteStart, dayStart)
    if (row.minuteStart !== minuteStart) {
      row.minuteStart = minuteStart
      row.minuteUsed = 0
      row.refusals = 0
    }
    if (row.dayStart !== dayStart) {
      row.dayStart = dayStart
      row.dayUsed = 0
    }
    return row
  }

  consume({ subject, limits, now, banThreshold, banMs }: ConsumeRequest): ConsumeResult {
    const row = this.#row(subject, now)
    if (row.bannedUntil !== null && row.bannedUntil > now) {
      return { outcome: 'banned', minuteUsed: row.minuteUsed, dayUsed: row.dayUsed, bannedUntil: row.bannedUntil, banStarted: false }
    }
    this.#dirty?.add(subject)
    if (row.minuteUsed < limits.perMinute && row.dayUsed < limits.perDay) {
      row.minuteUsed++
      row.dayUsed++
      return { outcome: 'allowed', minuteUsed: row.minuteUsed, dayUsed: row.dayUsed, bannedUntil: null, banStarted: false }
    }
    if (banThreshold !== null && row.refusals >= banThreshold) {
      row.bannedUntil = now + banMs
      row.refusals = 0
      this.#onBanChange?.(row)
      return { outcome: 'banned', minuteUsed: row.minuteUsed, dayUsed: row.dayUsed, bannedUntil: row.bannedUntil, banStarted: true }
    }
    row.refusals++
    return { outcome: 'limited', minuteUsed: row.minuteUsed, dayUsed: row.dayUsed, bannedUntil: null, banStarted: false }
  }

  async usage(subject: string, now: number): Promise<SubjectUsage> {
    return usageAt(this.#find(subject), now)
  }

  async unban(subject: string): Promise<void> {
    const row = this.#find(subject)
    if (row === undefined) return
    row.bannedUntil = null
    row.refusals = 0
    this.#dirty?.add(subject)
    this.#onBanChange?.(row)
  }

  async close(): Promise<void> {}

  /** Rows changed and subjects forgotten since the last call (with `trackChanges`); the caller persists them. */
  takeChanges(): CounterChanges {
    const rows: CounterRow[] = []
    for (const subject of this.#dirty ?? []) {
      const row = this.#find(subject)
      if (row !== undefined) rows.push({ ...row })
    }
    this.#dirty?.clear()
    const forgotten = [...(this.#forgotten ?? [])]
    this.#forgotten?.clear()
    return { rows, forgotten }
  }

  /** Loads persisted rows (at start-up); addresses past the cap are forgotten at once. */
  restore(rows: Iterable<CounterRow>): void {
    for (const row of rows) {
      const restored = this.#touch(row.subject, row.minuteStart, row.dayStart)
      Object.assign(restored, row)
    }
  }

  /**
   * Forgets rows whose day has ended and that hold no ban. Addresses leave from the least
   * recently seen end, stopping at the first seen today; keys are walked once a day.
   */
  prune(now: number): void {
    const today = windowStart(now, DAY_MS)
    for (let oldest = this.#addresses.oldest(); oldest !== undefined; oldest = this.#addresses.oldest()) {
      if (oldest.value.dayStart >= today || this.#dirty?.has(oldest.key) === true) break
      this.#forget(this.#addresses, oldest.key)
    }
    if (this.#keysPrunedFor === today) return
    this.#keysPrunedFor = today
    for (const [subject, row] of this.#keys) {
      if (row.dayStart < today && (row.bannedUntil === null || row.bannedUntil <= now) && !this.#dirty?.has(subject))
        this.#forget(this.#keys, subject)
    }
  }
}
