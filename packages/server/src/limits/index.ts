import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { ReadinessCheck } from '../http/health.ts'
import type { Metrics } from '../http/metrics.ts'
import { SqliteStorage } from '../storage/sqlite/index.ts'
import type { ChangeMarker } from '../storage/change-marker.ts'
import type { Storage } from '../storage/types.ts'
import { FallbackCounterStore } from './fallback.ts'
import { MemoryCounterStore } from './memory.ts'
import { persistCounters, SqliteCounterPersistence } from './sqlite-persistence.ts'
import type { CounterStore, SubjectUsage } from './types.ts'

export interface RateLimitStore {
  store: CounterStore
  /** The `/readyz` line for the counter store, when it has one. */
  readiness: Record<string, ReadinessCheck>
  /** Flushes and releases the store. */
  close(): Promise<void>
  /** With Redis: where instances sharing a store say the pets changed (see ChangeMarker). */
  changes?: ChangeMarker
}

export interface RateLimitDeps {
  clock: Clock
  logger: Logger
  metrics: Metrics
}

/** How long start-up waits for Redis before serving on per-instance limits. */
const REDIS_STARTUP_WAIT_MS = 3000

/**
 * The one place that picks where counters live: Redis when REDIS_URL is set (with this
 * instance's memory as the fallback during an outage); otherwise memory persisted to the
 * SQLite file; with PostgreSQL and no Redis, memory only (per instance, lost on restart).
 */
export async function openRateLimitStore(config: Config, storage: Storage, { clock, logger, metrics }: RateLimitDeps): Promise<RateLimitStore> {
  if (config.redisUrl !== undefined) {
    // Loaded only when Redis is configured: the embedded default never loads ioredis.
    const { RedisCounterStore } = await import('./redis.ts')
    const { RedisChangeMarker } = await import('../storage/change-marker.ts')
    const redis = new RedisCounterStore({ url: config.redisUrl, keyPrefix: config.redisKeyPrefix })
    // Not ready in time: serve on per-instance limits (the fallback says so) until it is.
    await redis.whenReady(REDIS_STARTUP_WAIT_MS)
    const store = new FallbackCounterStore(redis, new MemoryCounterStore(), {
      degraded: (error) => {
        metrics.limitStoreFallbacks.inc()
        metrics.limitStoreDegraded.set(1)
        logger.error({ err: error }, 'redis unreachable: rate limits fall back to per-instance counters until it returns')
      },
      recovered: () => {
        metrics.limitStoreDegraded.set(0)
        logger.warn('redis reachable again: rate limits are shared across instances again')
      }
    })
    return {
      store,
      readiness: { redis: async () => (store.degraded || !redis.ready ? `degraded: unreachable (${redis.redis.status}), per-instance limits in force` : 'ok') },
      close: () => store.close(),
      // On the connection the counters already keep open.
      changes: new RedisChangeMarker(redis.redis, config.redisKeyPrefix)
    }
  }
  const memory = new MemoryCounterStore()
  if (storage instanceof SqliteStorage) {
    const stop = persistCounters(memory, new SqliteCounterPersistence(storage.db), clock, (error) => logger.error({ err: error }, 'could not persist rate-limit counters'))
    return { store: memory, readiness: {}, close: async () => stop() }
  }
  logger.warn('no REDIS_URL with a PostgreSQL database: rate limits are per instance and reset on restart')
  return { store: memory, readiness: {}, close: async () => {} }
}

/** What `keys list` and `keys unban` need, from whichever process runs them. */
export interface LimitAdmin {
  usage(subject: string, now: number): Promise<SubjectUsage>
  unban(subject: string, now: number): Promise<void>
  close(): Promise<void>
}

export async function openLimitAdmin(config: Config, storage: Storage): Promise<LimitAdmin> {
  if (config.redisUrl !== undefined) {
    const { RedisCounterStore } = await import('./redis.ts')
    const redis = new RedisCounterStore({ url: config.redisUrl, keyPrefix: config.redisKeyPrefix, commandTimeoutMs: 3000 })
    if (!(await redis.whenReady(REDIS_STARTUP_WAIT_MS))) {
      const status = redis.redis.status
      await redis.close()
      throw new Error(`redis at REDIS_URL is unreachable (${status})`)
    }
    return { usage: (s, now) => redis.usage(s, now), unban: (s) => redis.unban(s), close: () => redis.close() }
  }
  if (storage instanceof SqliteStorage) {
    const persistence = new SqliteCounterPersistence(storage.db)
    return { usage: async (s, now) => persistence.usage(s, now), unban: async (s, now) => persistence.requestUnban(s, now), close: async () => {} }
  }
  // PostgreSQL without Redis: counters live only inside each serving process.
  return { usage: async () => ({ minuteUsed: 0, dayUsed: 0, bannedUntil: null }), unban: async () => {}, close: async () => {} }
}
