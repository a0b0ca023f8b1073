import { once } from 'node:events'
import { Redis } from 'ioredis'
import { DAY_MS, MINUTE_MS, windowStart } from '../domain/rate-limit-policy.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore, SubjectUsage } from './types.ts'

// One round trip, one atomic script: ban check, check of both windows, take from both or
// count the refusal (and maybe start the ban). Redis runs scripts one at a time, so no
// other request for the subject can interleave. Window keys carry their start, so a new
// window is a new key and old ones expire.
const CONSUME = `
local now = tonumber(ARGV[3])
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
local banned = tonumber(redis.call('GET', KEYS[4]) or '0')
if banned > now then return {2, m, d, tostring(banned), 0} end
if m < tonumber(ARGV[1]) and d < tonumber(ARGV[2]) then
  m = redis.call('INCR', KEYS[1])
  if m == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
  d = redis.call('INCR', KEYS[2])
  if d == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[6]) end
  return {0, m, d, '0', 0}
end
local r = tonumber(redis.call('GET', KEYS[3]) or '0')
if ARGV[7] ~= '' and r >= tonumber(ARGV[7]) then
  local untilMs = now + tonumber(ARGV[4])
  redis.call('SET', KEYS[4], tostring(untilMs), 'PX', ARGV[4])
  redis.call('DEL', KEYS[3])
  return {2, m, d, tostring(untilMs), 1}
end
r = redis.call('INCR', KEYS[3])
if r == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
return {1, m, d, '0', 0}
`

// Keys outlive their window by this much, so a clock slightly behind another instance's
// still finds them.
const TTL_SLACK_MS = 120_000

type ConsumeReply = [number, number, number, string, number]

interface ScriptedRedis extends Redis {
  animalStoreConsume(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<ConsumeReply>
}

export interface RedisOptions {
  url: string
  keyPrefix: string
  /** A command not answered in this time fails, so a stalled Redis cannot stall requests. */
  commandTimeoutMs?: number
}

/** Counters and bans in Redis: exact and atomic across any number of instances. */
export class RedisCounterStore implements CounterStore {
  readonly name = 'redis'
  readonly redis: ScriptedRedis
  readonly #prefix: string

  constructor(options: RedisOptions) {
    this.#prefix = options.keyPrefix
    this.redis = new Redis(options.url, {
      lazyConnect: false,
      // Fail fast while disconnected (the fallback store answers), reconnect forever.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      // The counters of every request that arrived in one event-loop turn go out in one write
      // (ioredis sends them together at the end of the turn) rather than one write each.
      enableAutoPipelining: true,
      // The change marker already sends one read per turn; deferring it again would cost a turn.
      autoPipeliningIgnoredCommands: ['get', 'set']
    }) as ScriptedRedis
    this.redis.defineCommand('animalStoreConsume', { numberOfKeys: 4, lua: CONSUME })
    // Errors are reported through the failing commands; an unhandled 'error' event would crash.
    this.redis.on('error', () => {})
  }

  get ready(): boolean {
    return this.redis.status === 'ready'
  }

  /** Resolves true once connected, false if not within `timeoutMs` (it keeps trying afterwards). */
  async whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return true
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs) })
    try {
      return await Promise.race([once(this.redis, 'ready').then(() => true), timedOut])
    } finally {
      clearTimeout(timer)
    }
  }

  #keys(subject: string, now: number): [string, string, string, string] {
    const base = `${this.#prefix}rl:{${subject}}`
    const minute = windowStart(now, MINUTE_MS)
    return [`${base}:m:${minute}`, `${base}:d:${windowStart(now, DAY_MS)}`, `${base}:r:${minute}`, `${base}:ban`]
  }

  async consume({ subject, limits, now, banThreshold, banMs }: ConsumeRequest): Promise<ConsumeResult> {
    const keys = this.#keys(subject, now)
    const minuteTtl = windowStart(now, MINUTE_MS) + MINUTE_MS - now + TTL_SLACK_MS
    const dayTtl = windowStart(now, DAY_MS) + DAY_MS - now + TTL_SLACK_MS
    const [outcome, minuteUsed, dayUsed, bannedUntil, started] = await this.redis.animalStoreConsume(
      ...keys, String(limits.perMinute), String(limits.perDay), String(now), String(banMs), String(minuteTtl), String(dayTtl), banThreshold === null ? '' : String(banThreshold)
    )
    return {
      outcome: outcome === 0 ? 'allowed' : outcome === 1 ? 'limited' : 'banned',
      minuteUsed,
      dayUsed,
      bannedUntil: outcome === 2 ? Number(bannedUntil) : null,
      banStarted: started === 1
    }
  }

  async usage(subject: string, now: number): Promise<SubjectUsage> {
    const [minute, day, , ban] = this.#keys(subject, now)
    const [m, d, b] = await this.redis.mget(minute, day, ban)
    const bannedUntil = b === null ? null : Number(b)
    return { minuteUsed: Number(m ?? 0), dayUsed: Number(d ?? 0), bannedUntil: bannedUntil !== null && bannedUntil > now ? bannedUntil : null }
  }

  async unban(subject: string): Promise<void> {
    const [, , refusals, ban] = this.#keys(subject, Date.now())
    await this.redis.del(ban, refusals)
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }
}
