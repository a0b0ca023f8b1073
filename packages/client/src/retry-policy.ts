/** How hard the client tries before it gives up. */
export interface RetryPolicy {
  /** Retries after the first attempt; a call makes at most `1 + maxRetries` requests. */
  maxRetries: number
  /**
   * The most the client sleeps between attempts within one call, in ms. A wait that would pass it is not
   * started: a 429 or 503 whose `Retry-After` is longer than what is left of it is thrown at once.
   */
  maxTotalWaitMs: number
  /** The first backoff ceiling in ms; it doubles with each retry. */
  baseDelayMs: number
  /** The highest backoff ceiling in ms. */
  maxDelayMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  // Long enough to wait out a minute window; a day window, a ban (15 minutes) or a spent monthly quota gives up at once.
  maxTotalWaitMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 20_000
}

/**
 * The wait before retry number `retry` (0 for the first): exponential backoff with full
 * jitter (a uniform draw below the doubling ceiling), and never less than `Retry-After`.
 */
export function retryDelay(retry: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  const backoff = Math.floor(random() * ceiling)
  return Math.max(retryAfterMs ?? 0, backoff)
}

/** `Retry-After` in ms: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000
  // Every HTTP-date form starts with a day name; Date.parse alone would take "-5" for a year.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

// setTimeout fires after 1 ms for any longer delay; a budget big enough to wait out a monthly quota
// (a Retry-After of up to 31 days) would otherwise retry at once.
const LONGEST_TIMER_MS = 2 ** 31 - 1

/** A `setTimeout` sleep that ends early, rejecting with the signal's reason, when the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted()
  await new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const wake = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', wake)
      resolve()
    }
    const arm = (left: number) => {
      timer = left > LONGEST_TIMER_MS ? setTimeout(() => arm(left - LONGEST_TIMER_MS), LONGEST_TIMER_MS) : setTimeout(wake, left)
    }
    arm(ms)
    signal?.addEventListener('abort', wake, { once: true })
  })
  // Woken by the abort: rejects with its reason, whatever it is (as fetch does), not only an Error.
  signal?.throwIfAborted()
}
