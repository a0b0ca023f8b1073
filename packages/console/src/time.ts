// Every moment the console shows or exports goes through here, in the zone the operator chose.
// The API speaks UTC; "local" is the browser's own zone.

export type Zone = 'utc' | 'local'

interface Fields {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
  /** Minutes east of UTC. */
  offset: number
}

function fields(date: Date, zone: Zone): Fields {
  if (zone === 'utc') {
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
      millisecond: date.getUTCMilliseconds(),
      offset: 0
    }
  }
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    millisecond: date.getMilliseconds(),
    offset: -date.getTimezoneOffset()
  }
}

const two = (value: number) => String(value).padStart(2, '0')

function day(f: Fields): string {
  return `${String(f.year).padStart(4, '0')}-${two(f.month)}-${two(f.day)}`
}

/** `Z` in UTC, else `+01:00`-style. */
function offsetText(f: Fields, zone: Zone): string {
  if (zone === 'utc') return 'Z'
  const sign = f.offset < 0 ? '-' : '+'
  const minutes = Math.abs(f.offset)
  return `${sign}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`
}

/** ISO 8601 with the zone's offset, as exports write it: `2026-11-27T10:15:00Z`, `2026-11-27T11:15:00+01:00` (milliseconds only when not zero). */
export function isoInZone(moment: string | Date, zone: Zone): string {
  const f = fields(new Date(moment), zone)
  const ms = f.millisecond === 0 ? '' : `.${String(f.millisecond).padStart(3, '0')}`
  return `${day(f)}T${two(f.hour)}:${two(f.minute)}:${two(f.second)}${ms}${offsetText(f, zone)}`
}

/** A moment for people: `2026-11-27 10:15:00 UTC`, `2026-11-27 11:15:00 +01:00`. */
export function displayTime(moment: string | Date, zone: Zone): string {
  const f = fields(new Date(moment), zone)
  const suffix = zone === 'utc' ? 'UTC' : offsetText(f, zone)
  return `${day(f)} ${two(f.hour)}:${two(f.minute)}:${two(f.second)} ${suffix}`
}

/** The value of an `<input type="datetime-local">` showing this moment in the zone. */
export function toInputValue(moment: string, zone: Zone): string {
  const f = fields(new Date(moment), zone)
  return `${day(f)}T${two(f.hour)}:${two(f.minute)}`
}

/** The moment an `<input type="datetime-local">` value names in the zone, as the API's UTC ISO 8601; null when malformed. */
export function fromInputValue(value: string, zone: Zone): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value)
  if (match === null) return null
  const [year, month, date, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0))
  const args = [year ?? 0, (month ?? 1) - 1, date, hour, minute, second] as const
  const moment = zone === 'utc' ? new Date(Date.UTC(...args)) : new Date(...args)
  return Number.isNaN(moment.getTime()) ? null : moment.toISOString()
}

/** How long until a moment, for people: `14:59`, `1:02:03`; `0:00` once it has passed. */
export function timeLeft(until: string, now: number): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(until) - now) / 1000))
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`
}
