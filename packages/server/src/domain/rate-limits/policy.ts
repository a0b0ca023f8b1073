import type { Limits, RateLimitStatus } from '@animal-store/contract'
import { TwoKeyMap } from '../../base/two-key-map.ts'
import { monthAt } from './month.ts'

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

export type WindowName = 'minute' | 'day' | 'month'

export interface WindowState {
  name: WindowName
  limit: number
  /** Requests taken in this window so far. */
  used: number
  /** Unix milliseconds at which the window ends (UTC-aligned). */
  endsAt: number
}

/** The minute, the day, and the calendar month when the limits have a monthly quota. */
export type Windows = [WindowState, WindowState] | [WindowState, WindowState, WindowState]

/** Fixed windows aligned to UTC: a minute starts at :00, a day at 00:00 UTC (the epoch is both). */
export function windowStart(now: number, length: number): number {
  return now - (now % length)
}

export function windowsAt(limits: Limits, now: number, usage: { minuteUsed: number; dayUsed: number; monthUsed: number }): Windows {
  const minute: WindowState = {
    name: 'minute',
    limit: limits.perMinute,
    used: usage.minuteUsed,
    endsAt: windowStart(now, MINUTE_MS) + MINUTE_MS
  }
  const day: WindowState = { name: 'day', limit: limits.perDay, used: usage.dayUsed, endsAt: windowStart(now, DAY_MS) + DAY_MS }
  if (limits.perMonth === null) return [minute, day]
  return [minute, day, { name: 'month', limit: limits.perMonth, used: usage.monthUsed, endsAt: monthAt(now).end }]
}

const remaining = (w: WindowState) => Math.max(0, w.limit - w.used)
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000))

/** The window in force: the one with the fewest requests remaining; the shortest on a tie. */
function windowInForce(windows: Windows): WindowState {
  let inForce = windows[0]
  for (let i = 1; i < windows.length; i++) if (remaining(windows[i]!) < remaining(inForce)) inForce = windows[i]!
  return inForce
}

/** The window that refuses a request: the longest one spent (waiting out a shorter one would not help), else the minute. */
export function blockingWindow(windows: Windows): WindowState {
  for (let i = windows.length - 1; i > 0; i--) if (windows[i]!.used >= windows[i]!.limit) return windows[i]!
  return windows[0]
}

/** One window of the IETF `RateLimit` field: its remaining requests and the seconds until it ends. */
const rateLimitItem = (w: WindowState, now: number) => `"${w.name}";r=${remaining(w)};t=${secondsUntil(w.endsAt, now)}`

/** The text of a pair of limits that every response under them repeats. */
interface PolicyText {
  policy: string
  minuteLimit: string
  dayLimit: string
}

/** A monthly quota's text beside a pair's: `w` is the length of the month it was spelled for. */
interface MonthPolicyText {
  seconds: number
  policy: string
  monthLimit: string
}

/** By limit per minute, then per day: spelled once per pair (the plans' and the customers' own, so bounded by the customers). */
const policyTexts = new TwoKeyMap<number, number, PolicyText>()
/** By the pair's text, then the monthly quota; respelled when a month of another length begins. */
const monthPolicyTexts = new TwoKeyMap<PolicyText, number, MonthPolicyText>()

const spellPolicy = (perMinute: number, perDay: number): PolicyText => ({
  policy: `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`,
  minuteLimit: String(perMinute),
  dayLimit: String(perDay)
})

function monthPolicy(text: PolicyText, month: WindowState, now: number): MonthPolicyText {
  const { start, end } = monthAt(now)
  const seconds = (end - start) / 1000
  const spelled = monthPolicyTexts.getOrAdd(text, month.limit, () => ({ seconds: 0, policy: '', monthLimit: String(month.limit) }))
  if (spelled.seconds !== seconds) {
    spelled.seconds = seconds
    spelled.policy = `${text.policy}, "month";q=${month.limit};w=${seconds}`
  }
  return spelled
}

/** X-RateLimit-* and the IETF RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10). */
export function rateLimitHeaders(windows: Windows, now: number): Record<string, string> {
  const inForce = windowInForce(windows)
  const [minute, day, month] = windows
  const text = policyTexts.getOrAdd(minute.limit, day.limit, spellPolicy)
  if (month === undefined) {
    return {
      'x-ratelimit-limit': inForce === minute ? text.minuteLimit : text.dayLimit,
      'x-ratelimit-remaining': String(remaining(inForce)),
      'x-ratelimit-reset': String(Math.ceil(inForce.endsAt / 1000)),
      'ratelimit-policy': text.policy,
      ratelimit: `${rateLimitItem(minute, now)}, ${rateLimitItem(day, now)}`
    }
  }
  const monthly = monthPolicy(text, month, now)
  return {
    'x-ratelimit-limit': inForce === minute ? text.minuteLimit : inForce === day ? text.dayLimit : monthly.monthLimit,
    'x-ratelimit-remaining': String(remaining(inForce)),
    'x-ratelimit-reset': String(Math.ceil(inForce.endsAt / 1000)),
    'ratelimit-policy': monthly.policy,
    ratelimit: `${rateLimitItem(minute, now)}, ${rateLimitItem(day, now)}, ${rateLimitItem(month, now)}`
  }
}

/** Whole seconds (at least 1) until `at`: the Retry-After of a refusal. */
export function retryAfterSeconds(at: number, now: number): number {
  return secondsUntil(at, now)
}

/** A subject's use of its windows at `now`, as `GET /v1/rate_limit` and `keys usage` answer it. */
export function rateLimitStatus(
  plan: string,
  limits: Limits,
  now: number,
  usage: { minuteUsed: number; dayUsed: number; monthUsed: number; bannedUntil: number | null }
): RateLimitStatus {
  const windows = windowsAt(limits, now, usage)
  return {
    plan,
    limits: windows.map((w) => ({ window: w.name, limit: w.limit, remaining: remaining(w), reset: Math.ceil(w.endsAt / 1000) })),
    bannedUntil: usage.bannedUntil === null ? null : Math.ceil(usage.bannedUntil / 1000)
  }
}
