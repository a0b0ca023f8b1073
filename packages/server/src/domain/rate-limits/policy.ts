import type { Limits, RateLimitStatus } from '@animal-store/contract'
import { TwoKeyMap } from '../../base/two-key-map.ts'

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

export type WindowName = 'minute' | 'day'

export interface WindowState {
  name: WindowName
  limit: number
  /** Requests taken in this window so far. */
  used: number
  /** Unix milliseconds at which the window ends (UTC-aligned). */
  endsAt: number
}

/** Fixed windows aligned to UTC: a minute starts at :00, a day at 00:00 UTC (the epoch is both). */
export function windowStart(now: number, length: number): number {
  return now - (now % length)
}

export function windowsAt(limits: Limits, now: number, minuteUsed: number, dayUsed: number): [WindowState, WindowState] {
  return [
    { name: 'minute', limit: limits.perMinute, used: minuteUsed, endsAt: windowStart(now, MINUTE_MS) + MINUTE_MS },
    { name: 'day', limit: limits.perDay, used: dayUsed, endsAt: windowStart(now, DAY_MS) + DAY_MS }
  ]
}

const remaining = (w: WindowState) => Math.max(0, w.limit - w.used)
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000))

/** The window in force: the one with the fewest requests remaining; the shorter on a tie. */
function windowInForce([minute, day]: [WindowState, WindowState]): WindowState {
  return remaining(day) < remaining(minute) ? day : minute
}

/** The window that refuses a request: the day when it is spent (waiting out the minute would not help), else the minute. */
export function blockingWindow([minute, day]: [WindowState, WindowState]): WindowState {
  return day.used >= day.limit ? day : minute
}

/** One window of the IETF `RateLimit` field: its remaining requests and the seconds until it ends. */
const rateLimitItem = (w: WindowState, now: number) => `"${w.name}";r=${remaining(w)};t=${secondsUntil(w.endsAt, now)}`

/** The text of a pair of limits that every response under them repeats. */
interface PolicyText {
  policy: string
  minuteLimit: string
  dayLimit: string
}

/** By limit per minute, then per day: spelled once per pair (the plans' and the keys' overrides, so bounded by the keys). */
const policyTexts = new TwoKeyMap<number, number, PolicyText>()

const spellPolicy = (perMinute: number, perDay: number): PolicyText => ({
  policy: `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`,
  minuteLimit: String(perMinute),
  dayLimit: String(perDay)
})

/** X-RateLimit-* and the IETF RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10). */
export function rateLimitHeaders(windows: [WindowState, WindowState], now: number): Record<string, string> {
  const inForce = windowInForce(windows)
  const [minute, day] = windows
  const text = policyTexts.getOrAdd(minute.limit, day.limit, spellPolicy)
  return {
    'x-ratelimit-limit': inForce === minute ? text.minuteLimit : text.dayLimit,
    'x-ratelimit-remaining': String(remaining(inForce)),
    'x-ratelimit-reset': String(Math.ceil(inForce.endsAt / 1000)),
    'ratelimit-policy': text.policy,
    ratelimit: `${rateLimitItem(minute, now)}, ${rateLimitItem(day, now)}`
  }
}

/** Whole seconds (at least 1) until `at`: the Retry-After of a refusal. */
export function retryAfterSeconds(at: number, now: number): number {
  return secondsUntil(at, now)
}

/** A subject's use of both windows at `now`, as `GET /v1/rate_limit` and `keys usage` answer it. */
export function rateLimitStatus(
  plan: string,
  limits: Limits,
  now: number,
  usage: { minuteUsed: number; dayUsed: number; bannedUntil: number | null }
): RateLimitStatus {
  const windows = windowsAt(limits, now, usage.minuteUsed, usage.dayUsed)
  return {
    plan,
    limits: windows.map((w) => ({ window: w.name, limit: w.limit, remaining: remaining(w), reset: Math.ceil(w.endsAt / 1000) })),
    bannedUntil: usage.bannedUntil === null ? null : Math.ceil(usage.bannedUntil / 1000)
  }
}
