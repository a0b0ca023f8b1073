import { monthAt } from '../../domain/rate-limits/month.ts'
import { DAY_MS, MINUTE_MS, windowStart } from '../../domain/rate-limits/policy.ts'
import { clearRow, enterWindows, resultOf, usageAt } from './row-windows.ts'
import type { CounterRow } from '../../storage/counter-file-types.ts'
import {
  ADDRESS_PREFIX,
  KEY_PREFIX,
  type ConsumeRequest,
  type ConsumeResult,
  type CounterStore,
  type SubjectBan,
  type SubjectUsage
} from '../types.ts'
import { AddressRows } from './address-rows.ts'
import { KeyRows } from './key-rows.ts'
import type { CounterChanges, HeldRow } from './row-table.ts'
import { joined } from './typed-lists.ts'

export interface MemoryCounterOptions {
  /** The most client addresses kept (RATE_LIMIT_MAX_ADDRESSES); past it the least recently seen is forgotten. */
  maxAddresses?: number
  /** Remember changed and forgotten rows for a persistence layer to take (`takeChanges`). */
  trackChanges?: boolean
  /** Told synchronously when a ban starts or is lifted, so it can be made durable at once. */
  onBanChange?: (row: CounterRow) => void
}

/**
 * Counters in this process's memory. `consume` runs to completion without yielding, so it
 * is atomic by construction. Keys' rows are bounded by the keys issued; addresses' rows by
 * `maxAddresses`, kept in least-recently-seen order (a request moves its address to the
 * end, a new address past the cap drops the first): O(1) per request, never a walk. A
 * forgotten address starts afresh when it is seen again, as with nginx's `limit_req_zone`.
 */
export class MemoryCounterStore implements CounterStore {
  readonly #keys: KeyRows
  readonly #addresses: AddressRows
  readonly #onBanChange: ((row: CounterRow) => void) | undefined
  /** The day whose start last pruned keys' rows: keys are walked once a day, not per request. */
  #keysPrunedFor = 0

  constructor(options: MemoryCounterOptions = {}) {
    const trackChanges = options.trackChanges === true
    this.#keys = new KeyRows({ trackChanges })
    this.#addresses = new AddressRows(options.maxAddresses ?? Number.POSITIVE_INFINITY, { trackChanges })
    this.#onBanChange = options.onBanChange
  }

  /** Rows of client addresses held now. */
  get addressCount(): number {
    return this.#addresses.size
  }

  #find(subject: string): HeldRow | undefined {
    if (!subject.startsWith(ADDRESS_PREFIX)) return this.#keys.find(subject)
    const slot = this.#addresses.find(subject)
    return slot === -1 ? undefined : this.#addresses.at(slot)
  }

  /** The subject's row, created or moved to the most recently seen end. */
  #touch(subject: string, now: number): HeldRow {
    if (subject.startsWith(ADDRESS_PREFIX)) {
      const seen = this.#addresses.see(subject)
      if (seen !== -1) return this.#addresses.at(seen)
      const row = this.#addresses.at(this.#addresses.add(subject))
      clearRow(row, now)
      return row
    }
    return this.#keys.find(subject) ?? this.#keys.add(subject, windowStart(now, MINUTE_MS), windowStart(now, DAY_MS))
  }

  consume({ subject, limits, now, banThreshold, banMs }: ConsumeRequest): ConsumeResult {
    const row = this.#touch(subject, now)
    const perMonth = limits.perMonth
    enterWindows(row, now, perMonth !== null)
    const monthUsed = perMonth === null ? 0 : row.monthUsed
    if (row.bannedUntil !== null && row.bannedUntil > now) return resultOf('banned', row, monthUsed, row.bannedUntil, false)
    row.markChanged()
    if (row.minuteUsed < limits.perMinute && row.dayUsed < limits.perDay && (perMonth === null || monthUsed < perMonth)) {
      row.minuteUsed++
      row.dayUsed++
      if (perMonth === null) return resultOf('allowed', row, 0, null, false)
      row.monthUsed++
      return resultOf('allowed', row, monthUsed + 1, null, false)
    }
    if (banThreshold !== null && row.refusals >= banThreshold) {
      row.bannedUntil = now + banMs
      row.refusals = 0
      this.#onBanChange?.(row)
      return resultOf('banned', row, monthUsed, row.bannedUntil, true)
    }
    row.refusals++
    return resultOf('limited', row, monthUsed, null, false)
  }

  async usage(subject: string, now: number): Promise<SubjectUsage> {
    return usageAt(this.#find(subject), now)
  }

  async unban(subject: string): Promise<void> {
    const row = this.#find(subject)
    if (row === undefined) return
    row.bannedUntil = null
    row.refusals = 0
    row.markChanged()
    this.#onBanChange?.(row)
  }

  async bans(now: number): Promise<SubjectBan[]> {
    const bans: SubjectBan[] = []
    for (const { subject, bannedUntil } of this.#keys.rows()) {
      if (bannedUntil !== null && bannedUntil > now && subject.startsWith(KEY_PREFIX)) bans.push({ subject, bannedUntil })
    }
    return bans
  }

  async close(): Promise<void> {}

  /** Rows changed and subjects forgotten since the last call (with `trackChanges`); the caller persists them. */
  takeChanges(): CounterChanges {
    const keys = this.#keys.takeChanges()
    const addresses = this.#addresses.takeChanges()
    return { forgotten: joined(keys.forgotten, addresses.forgotten), rows: joined(keys.rows, addresses.rows) }
  }

  /** Loads persisted rows (at start-up); addresses past the cap are forgotten at once. */
  restore(rows: Iterable<CounterRow>): void {
    for (const { subject, minuteStart, minuteUsed, refusals, dayStart, dayUsed, monthStart, monthUsed, bannedUntil } of rows) {
      const row = this.#touch(subject, minuteStart)
      Object.assign(row, { minuteStart, minuteUsed, refusals, dayStart, dayUsed, monthStart, monthUsed, bannedUntil })
    }
  }

  /**
   * Forgets rows whose day has ended and that hold no ban (nor, for a key, a count of this
   * month). Addresses leave from the least recently seen end, stopping at the first seen
   * today; keys are walked once a day.
   */
  prune(now: number): void {
    const today = windowStart(now, DAY_MS)
    const month = monthAt(now).start
    const addresses = this.#addresses
    for (let oldest = addresses.oldest; oldest !== -1; oldest = addresses.oldest) {
      if (addresses.at(oldest).dayStart >= today || addresses.isChanged(oldest)) break
      addresses.remove(oldest)
    }
    if (this.#keysPrunedFor === today) return
    this.#keysPrunedFor = today
    for (const row of this.#keys.rows()) {
      const idle = row.dayStart < today && (row.monthStart < month || row.monthUsed === 0)
      if (idle && (row.bannedUntil === null || row.bannedUntil <= now) && !this.#keys.isChanged(row.slot)) {
        this.#keys.remove(row)
      }
    }
  }
}
