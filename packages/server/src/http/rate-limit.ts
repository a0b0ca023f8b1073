import { PLANS, type Limits } from '@animal-store/contract'
import type { FastifyReply } from 'fastify'
import type { Clock } from '../clock.ts'
import { ApiError } from '../domain/api-error.ts'
import { limitsOf } from '../domain/keys.ts'
import { blockingWindow, rateLimitHeaders, retryAfterSeconds, windowsAt } from '../domain/rate-limit-policy.ts'
import { addressSubject, keySubject, type ConsumeResult, type CounterStore } from '../limits/types.ts'
import type { ApiStep } from './api-guard.ts'
import type { AuthResult } from './auth.ts'
import type { Metrics } from './metrics.ts'

export interface RateLimitOptions {
  store: CounterStore
  clock: Clock
  banMs: number
  metrics: Metrics
  /** Kept up to date: the API keys whose latest request this step refused (limited or banned). */
  refusedKeys: Set<string>
}

/** Requests without a valid key are limited per client address at the Free plan's numbers. */
const ANONYMOUS_LIMITS: Limits = PLANS.free

/**
 * The rate-limit step of every /v1 request: one atomic consume, the headers of both windows
 * on the response whatever its status, and the 429 when the store refuses.
 */
export function rateLimitStep({ store, clock, banMs, metrics, refusedKeys }: RateLimitOptions): ApiStep {
  const decide = (reply: FastifyReply, auth: AuthResult, limits: Limits, now: number, result: ConsumeResult): void => {
    const keyed = auth.ok
    const plan = keyed ? auth.key.plan : 'anonymous'
    const windows = windowsAt(limits, now, result.minuteUsed, result.dayUsed)
    reply.headers(rateLimitHeaders(windows, now))

    if (result.outcome === 'allowed') {
      metrics.rateLimitAllowed(plan)
      if (keyed) {
        metrics.keyAdmitted(auth.key.id)
        if (refusedKeys.size > 0) refusedKeys.delete(auth.key.id)
      }
      return
    }
    if (keyed) refusedKeys.add(auth.key.id)
    if (result.outcome === 'banned') {
      const until = result.bannedUntil!
      metrics.rateLimitDecisions.inc({ plan, outcome: 'banned', window: 'none' })
      if (result.banStarted && keyed) metrics.banStarted(plan, auth.key.id, until)
      const seconds = retryAfterSeconds(until, now)
      throw new ApiError('api_key_banned', `the API key is banned until ${new Date(until).toISOString()} for repeated requests past its rate limit; retry after ${seconds} s and back off exponentially`, { 'retry-after': String(seconds) })
    }
    const blocking = blockingWindow(windows)
    metrics.rateLimitDecisions.inc({ plan, outcome: 'rate_limited', window: blocking.name })
    const seconds = retryAfterSeconds(blocking.endsAt, now)
    throw new ApiError('rate_limited', `rate limit of ${blocking.limit} requests per ${blocking.name} exceeded; retry after ${seconds} s`, { 'retry-after': String(seconds) })
  }

  return (request, reply, auth) => {
    const keyed = auth.ok
    const limits = keyed ? limitsOf(auth.key) : ANONYMOUS_LIMITS
    const now = clock.now()
    const result = store.consume({
      subject: keyed ? keySubject(auth.key.id) : addressSubject(request.ip),
      limits,
      now,
      // Bans are for keys; an address is throttled, never banned, so one bad client behind a shared NAT cannot lock out the rest.
      banThreshold: keyed ? limits.perMinute : null,
      banMs
    })
    if (result instanceof Promise) return result.then((settled) => decide(reply, auth, limits, now, settled))
    decide(reply, auth, limits, now, result)
    return undefined
  }
}
