import { monthAt } from '../../domain/rate-limits/month.ts'
import { DAY_MS, MINUTE_MS, windowStart } from '../../domain/rate-limits/policy.ts'
import type { CounterRow } from '../../storage/counter-file-types.ts'
import type { ConsumeResult, SubjectUsage } from '../types.ts'

// The window rules of one counter row, shared by the in-memory store and the file's reader.

/** What a stored row means at `now`: counts of windows that have ended are zero, an ended ban is none. */
export function usageAt(row: CounterRow | undefined, now: number): SubjectUsage {
  if (row === undefined) return { minuteUsed: 0, dayUsed: 0, monthUsed: 0, bannedUntil: null }
  return {
    minuteUsed: row.minuteStart === windowStart(now, MINUTE_MS) ? row.minuteUsed : 0,
    dayUsed: row.dayStart === windowStart(now, DAY_MS) ? row.dayUsed : 0,
    monthUsed: row.monthStart === monthAt(now).start ? row.monthUsed : 0,
    bannedUntil: row.bannedUntil !== null && row.bannedUntil > now ? row.bannedUntil : null
  }
}

/** Starts the windows of `now` that the row has not reached yet; the month only under a monthly quota, so without one it costs nothing. */
export function enterWindows(row: CounterRow, now: number, countsMonth: boolean): void {
  const minuteStart = windowStart(now, MINUTE_MS)
  if (row.minuteStart !== minuteStart) {
    row.minuteStart = minuteStart
    row.minuteUsed = 0
    row.refusals = 0
  }
  const dayStart = windowStart(now, DAY_MS)
  if (row.dayStart !== dayStart) {
    row.dayStart = dayStart
    row.dayUsed = 0
  }
  if (countsMonth) {
    const monthStart = monthAt(now).start
    if (row.monthStart !== monthStart) {
      row.monthStart = monthStart
      row.monthUsed = 0
    }
  }
}

/** A fresh row's numbers: nothing counted, no ban. */
export function clearRow(row: CounterRow, now: number): void {
  row.minuteStart = windowStart(now, MINUTE_MS)
  row.minuteUsed = 0
  row.refusals = 0
  row.dayStart = windowStart(now, DAY_MS)
  row.dayUsed = 0
  row.monthStart = 0
  row.monthUsed = 0
  row.bannedUntil = null
}

/** A consume's answer from the row it left: `monthUsed` is 0 when the month is not counted. */
export function resultOf(
  outcome: ConsumeResult['outcome'],
  row: CounterRow,
  monthUsed: number,
  bannedUntil: number | null,
  banStarted: boolean
): ConsumeResult {
  return { outcome, minuteUsed: row.minuteUsed, dayUsed: row.dayUsed, monthUsed, bannedUntil, banStarted }
}
