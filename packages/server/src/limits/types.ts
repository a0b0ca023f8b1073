import type { Limits } from '@animal-store/contract'
import type { Maybe } from '../base/maybe.ts'
import type { WindowUsage } from '../domain/customers/counters.ts'

export interface ConsumeRequest {
  /** `key:<counter id>` (a customer's counters, shared by its keys) or `ip:<address>`. */
  subject: string
  limits: Limits
  now: number
  /** Refusals in one minute window after which the next refusal starts a ban; null: never ban (per-address limits). */
  banThreshold: number | null
  banMs: number
}

export interface ConsumeResult {
  outcome: 'allowed' | 'limited' | 'banned'
  /** Requests taken in the current minute, day and month windows, after this one (the month: 0 without a monthly quota). */
  minuteUsed: number
  dayUsed: number
  monthUsed: number
  /** When the subject's ban ends, if it is banned. */
  bannedUntil: number | null
  /** This request started the ban. */
  banStarted: boolean
}

/** A subject under a ban, and when it ends (Unix milliseconds). */
export interface SubjectBan {
  subject: string
  bannedUntil: number
}

/** A subject's usage of the windows containing some moment, and its ban. */
export type SubjectUsage = WindowUsage

/** What any process may ask of the counters: `keys list` and `keys unban` too. */
export interface CounterReader {
  /** The subject's usage in the windows containing `now`, and its ban. */
  usage(subject: string, now: number): Promise<SubjectUsage>
  /** Lifts the subject's ban and forgets its refusals, on every instance. */
  unban(subject: string, now: number): Promise<void>
  /** Every customer subject (`key:<counter id>`) banned at `now`, with the end of its ban, in no order; addresses are never banned. */
  bans(now: number): Promise<SubjectBan[]>
  /** Makes counters durable (where the store persists them) and releases connections. */
  close(): Promise<void>
}

/**
 * Where rate-limit counters and bans live. Each `consume` is one atomic step: no other
 * request for the subject can interleave between its check and its take.
 */
export interface CounterStore extends CounterReader {
  /**
   * Atomically: a banned subject is `banned` and takes nothing. Otherwise, when both windows
   * have room, takes one from both and is `allowed`. Otherwise counts a refusal in the minute
   * window and is `limited`, unless `banThreshold` refusals were already counted there, in
   * which case it starts a ban of `banMs` and is `banned` with `banStarted`. An in-process
   * store answers synchronously, sparing the hot path a promise.
   */
  consume(request: ConsumeRequest): Maybe<ConsumeResult>
}

/** A counter store across the network, which can be unreachable for a while. */
export interface RemoteCounterStore extends CounterStore {
  /** Connected and answering commands now. */
  readonly ready: boolean
  /** The connection's state, for logs and `/readyz` (`ready`, `reconnecting`, ...). */
  readonly status: string
}

/** What a store that falls back to per-instance counters reports. */
export interface FallbackEvents {
  /** The shared store stopped answering: limits are now per instance. Called once per outage. */
  degraded(error: unknown): void
  /** The shared store answers again. */
  recovered(): void
}

/** A customer's subject: `key:` and its counter id (the id of the key it was made from when upgraded, else its own). */
export const KEY_PREFIX = 'key:'
export const keySubject = (counterId: string) => KEY_PREFIX + counterId
export const ADDRESS_PREFIX = 'ip:'
export const addressSubject = (address: string) => ADDRESS_PREFIX + address
