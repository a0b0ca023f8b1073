import { DAY_MS, MINUTE_MS, windowStart } from '../domain/rate-limit-policy.ts'
import type { CounterRow } from '../storage/types.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore, SubjectUsage } from './types.ts'

/** What a stored row means at `now`: counts of windows that have ended are zero, an ended ban is none. */
export function usageAt(row: CounterRow | undefined, now: number): SubjectUsage {
  if (row === undefined) return { minuteUsed: 0, dayUsed: 0, bannedUntil: null }
  return {
    minuteUsed: row.minuteStart === windowStart(now, MINUTE_MS) ? row.minuteUsed : 0,
    dayUsed: row.dayStart === windowStart(now, DAY_MS) ? row.dayUsed : 0,
    bannedUntil: row.bannedUntil !== null && row.bannedUntil > now ? row.bannedUntil : null
  }
}

/**
 * Counters in this process's memory. `consume` runs to completion without yielding, so it
 * is atomic by construction. Changed rows are remembered for a persistence layer to flush.
 */
export class MemoryCounterStore implements CounterStore {
  readonly #rows = new Map<string, CounterRow>()
  readonly #dirty = new Set<string>()
  /** Told synchronously when a ban starts or is lifted, so it can be made durable at once. */
  readonly #onBanChange: ((row: CounterRow) => void) | undefined

  constructor(options: { onBanChange?: (row: CounterRow) => void } = {}) {
    this.#onBanChange = options.onBanChange
  }

  #row(subject: string, now: number): CounterRow {
    const minuteStart = windowStart(now, MINUTE_MS)
    const dayStart = windowStart(now, DAY_MS)
    let row = this.#rows.get(subject)
    if (row === undefined) {
      row = { subject, minuteStart, minuteUsed: 0, refusals: 0, dayStart, dayUsed: 0, bannedUntil: null }
      this.#rows.set(subject, row)
      return row
    }
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
    this.#dirty.add(subject)
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
    return usageAt(this.#rows.get(subject), now)
  }

  async unban(subject: string): Promise<void> {
    const row = this.#rows.get(subject)
    if (row === undefined) return
    row.bannedUntil = null
    row.refusals = 0
    this.#dirty.add(subject)
    this.#onBanChange?.(row)
  }

  async close(): Promise<void> {}

  /** Rows changed since the last call; the caller persists them. */
  takeDirty(): CounterRow[] {
    const rows: CounterRow[] = []
    for (const subject of this.#dirty) {
      const row = this.#rows.get(subject)
      if (row !== undefined) rows.push({ ...row })
    }
    this.#dirty.clear()
    return rows
  }

  /** Loads persisted rows (at start-up). */
  restore(rows: Iterable<CounterRow>): void {
    for (const row of rows) this.#rows.set(row.subject, { ...row })
  }

  /** Forgets rows whose day has ended and that hold no ban, so memory stays bounded by active subjects. */
  prune(now: number): void {
    const today = windowStart(now, DAY_MS)
    for (const [subject, row] of this.#rows) {
      if (row.dayStart < today && (row.bannedUntil === null || row.bannedUntil <= now) && !this.#dirty.has(subject))
        this.#rows.delete(subject)
    }
  }
}
