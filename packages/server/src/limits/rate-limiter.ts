import { ANONYMOUS_LIMITS, type Limits, type RateLimitStatus } from '@animal-store/contract'
import type { Clock } from '../base/clock.ts'
import { isPending, type Maybe } from '../base/maybe.ts'
import { ApiError } from '../domain/api-error.ts'
import type { CustomerCounters, WindowUsage } from '../domain/customers/counters.ts'
import type { PlanBook } from '../domain/plans/book.ts'
import type { UsageRecorder } from '../domain/usage/recorder.ts'
import {
  blockingWindow,
  rateLimitHeaders,
  rateLimitStatus,
  retryAfterSeconds,
  windowsAt,
  type WindowName
} from '../domain/rate-limits/policy.ts'
import { monthAt, monthName } from '../domain/rate-limits/month.ts'
import type { ApiKeyRecord } from '../storage/keys/types.ts'
import { addressSubject, KEY_PREFIX, keySubject, type ConsumeResult, type CounterReader, type CounterStore } from './types.ts'

/** The codes of the rate limiter's 429s. */
export type RefusalCode = 'rate_limited' | 'quota_exceeded' | 'banned'

/** Told of every decision, for metrics. */
export interface RateLimitObserver {
  allowed(plan: string): void
  refused(plan: string, outcome: RefusalCode, window: WindowName | 'none'): void
  banStarted(plan: string, keyId: string, until: number): void
  keyAdmitted(keyId: string): void
}

/** The headers every /v1 response carries, and the 429 when the request is refused. */
export interface Verdict {
  headers: Record<string, string>
  refusal: ApiError | undefined
}

/**
 * The rate limit of every /v1 request: one atomic consume in the counter store, for the key or,
 * without a valid key, for the client address. Keys are banned for hammering; addresses are
 * throttled, never banned, so one bad client behind a shared NAT cannot lock out the rest.
 */
export class RateLimiter {
  readonly #store: CounterStore
  readonly #clock: Clock
  readonly #banMs: number
  readonly #observer: RateLimitObserver
  readonly #usage: UsageRecorder
  readonly #plans: PlanBook
  /** Customers' counters whose latest request was refused (limited or banned); bounded by the customers. */
  readonly #refused = new Set<string>()

  /** `usage` is told the verdict of every request that names a valid key (and of no other). */
  /** Requests without a valid key are limited per client address at SPEC.md's Free numbers; a key at its plan's (from `plans`). */
  constructor(
    store: CounterStore,
    clock: Clock,
    options: { banMs: number; observer: RateLimitObserver; usage: UsageRecorder; plans: PlanBook }
  ) {
    this.#store = store
    this.#clock = clock
    this.#banMs = options.banMs
    this.#observer = options.observer
    this.#usage = options.usage
    this.#plans = options.plans
  }

  /** Consumes one request for a key, or for a client address (its address key). Synchronous when the store is. */
  check(caller: ApiKeyRecord | string): Maybe<Verdict> {
    const key = typeof caller === 'string' ? undefined : caller
    const limits = key === undefined ? ANONYMOUS_LIMITS : this.#plans.limitsOf(key)
    // A plan made on another instance since this one last read the plans: read them, then decide.
    return isPending(limits) ? limits.then((known) => this.#consume(caller, key, known)) : this.#consume(caller, key, limits)
  }

  #consume(caller: ApiKeyRecord | string, key: ApiKeyRecord | undefined, limits: Limits): Maybe<Verdict> {
    const now = this.#clock.now()
    const result = this.#store.consume({
      subject: key === undefined ? addressSubject(caller as string) : keySubject(key.counterId),
      limits,
      now,
      banThreshold: key === undefined ? null : limits.perMinute,
      banMs: this.#banMs
    })
    return isPending(result) ? result.then((settled) => this.#decide(key, limits, now, settled)) : this.#decide(key, limits, now, result)
  }

  /** The key's use of its windows and its ban, with the headers that describe them; consumes nothing. */
  async status(key: ApiKeyRecord): Promise<{ status: RateLimitStatus; headers: Record<string, string> }> {
    const limits = await this.#plans.limitsOf(key)
    const now = this.#clock.now()
    const usage = await this.#store.usage(keySubject(key.counterId), now)
    return {
      status: rateLimitStatus(key.plan, limits, now, usage),
      headers: rateLimitHeaders(windowsAt(limits, now, usage), now)
    }
  }

  /** The rate-limit headers of an address's window in force, taking nothing; none when its counters cannot be read. */
  async addressHeaders(address: string): Promise<Record<string, string>> {
    const now = this.#clock.now()
    try {
      const usage = await this.#store.usage(addressSubject(address), now)
      return rateLimitHeaders(windowsAt(ANONYMOUS_LIMITS, now, usage), now)
    } catch {
      return {}
    }
  }

  /** True when the latest request of the customer (by its counter id) was refused: work for its next one waits for the verdict. */
  recentlyRefused(counterId: string): boolean {
    return this.#refused.size > 0 && this.#refused.has(counterId)
  }

  #decide(key: ApiKeyRecord | undefined, limits: Limits, now: number, result: ConsumeResult): Verdict {
    const plan = key === undefined ? 'anonymous' : key.plan
    const windows = windowsAt(limits, now, result)
    const headers = rateLimitHeaders(windows, now)
    if (result.outcome === 'allowed') {
      this.#observer.allowed(plan)
      if (key !== undefined) {
        this.#usage.count(key.id, 'allowed', now)
        this.#observer.keyAdmitted(key.id)
        if (this.#refused.size > 0) this.#refused.delete(key.counterId)
      }
      return { headers, refusal: undefined }
    }
    if (result.outcome === 'banned') {
      if (key !== undefined) this.#refusedKey(key, 'banned', now)
      const until = result.bannedUntil!
      this.#observer.refused(plan, 'banned', 'none')
      if (result.banStarted && key !== undefined) this.#observer.banStarted(plan, key.id, until)
      const seconds = retryAfterSeconds(until, now)
      const message =
        `the API key is banned until ${new Date(until).toISOString()} for repeated requests past its rate limit; ` +
        `retry after ${seconds} s and back off exponentially`
      return { headers, refusal: new ApiError('api_key_banned', message, { 'retry-after': String(seconds) }) }
    }
    const blocking = blockingWindow(windows)
    const seconds = retryAfterSeconds(blocking.endsAt, now)
    if (blocking.name === 'month') {
      if (key !== undefined) this.#refusedKey(key, 'quotaExceeded', now)
      this.#observer.refused(plan, 'quota_exceeded', 'month')
      const message =
        `the monthly quota of ${blocking.limit} requests for ${monthName(monthAt(now))} is spent; ` +
        `retry after ${seconds} s, when the month ends`
      return { headers, refusal: new ApiError('quota_exceeded', message, { 'retry-after': String(seconds) }) }
    }
    if (key !== undefined) this.#refusedKey(key, 'rateLimited', now)
    this.#observer.refused(plan, 'rate_limited', blocking.name)
    const message = `rate limit of ${blocking.limit} requests per ${blocking.name} exceeded; retry after ${seconds} s`
    return { headers, refusal: new ApiError('rate_limited', message, { 'retry-after': String(seconds) }) }
  }

  /** A refusal of a key's request: its customer's next request waits for its verdict, and the key's usage counts it. */
  #refusedKey(key: ApiKeyRecord, outcome: 'rateLimited' | 'quotaExceeded' | 'banned', now: number): void {
    this.#refused.add(key.counterId)
    this.#usage.count(key.id, outcome, now)
  }
}

/** A customer's counters, by counter id, for administration. */
export function customerCounters(counters: CounterReader): CustomerCounters {
  return {
    usage: (counterId: string, now: number): Promise<WindowUsage> => counters.usage(keySubject(counterId), now),
    unban: (counterId: string, now: number) => counters.unban(keySubject(counterId), now),
    bans: async (now: number) =>
      (await counters.bans(now)).map(({ subject, bannedUntil }) => ({ counterId: subject.slice(KEY_PREFIX.length), bannedUntil }))
  }
}
