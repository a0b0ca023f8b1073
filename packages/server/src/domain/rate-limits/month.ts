/** A UTC calendar month: its first millisecond and the first of the next. */
export interface CalendarMonth {
  readonly start: number
  readonly end: number
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December'
]

// The month changes twelve times a year: every consume in between reuses the last answer
// instead of building a Date.
let latest: CalendarMonth = { start: 0, end: 0 }

/** The UTC calendar month holding `now` (from 00:00 UTC on the 1st). */
export function monthAt(now: number): CalendarMonth {
  if (now >= latest.start && now < latest.end) return latest
  const date = new Date(now)
  const year = date.getUTCFullYear()
  const month = date.getUTCMonth()
  latest = { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) }
  return latest
}

/** The month as people name it, e.g. `December 2026`. */
export function monthName(month: CalendarMonth): string {
  const date = new Date(month.start)
  return `${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCFullYear()}`
}
