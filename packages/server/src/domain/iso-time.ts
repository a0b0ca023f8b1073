import { ApiError } from './api-error.ts'

// Moments as people and the operator API write them: ISO 8601, parsed exactly (no Date.parse leniency).

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2}))?$/i

/** Unix milliseconds of an ISO 8601 date (its midnight UTC) or date-time with a UTC offset: undefined if not of that shape, NaN if no real moment. */
export function parseIsoTime(text: string): number | undefined {
  const match = ISO_TIME.exec(text)
  if (match === null) return undefined
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0))
  const zone = (match[8] ?? 'Z').toUpperCase()
  const offset = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)))
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return Number.NaN
  if (Math.abs(offset) >= 24 * 60 || Number(zone.slice(-2)) > 59) return Number.NaN
  const ms = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3))
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset * 60_000
}

/** A moment of a query, as Unix milliseconds; one that names no real moment is refused. */
export function queryMoment(field: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const at = parseIsoTime(text)
  if (at === undefined || Number.isNaN(at))
    throw new ApiError('validation_failed', `${field} names no real date and time (got ${JSON.stringify(text)})`)
  return at
}
