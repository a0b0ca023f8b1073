import type { Logger } from 'pino'
import type { Clock } from '../base/clock.ts'
import type { Config } from '../config.ts'
import type { Metrics } from '../http/services/metrics.ts'
import { FallbackCounterStore } from '../limits/fallback.ts'
import { MemoryCounterStore } from '../limits/memory/counter-store.ts'
import { CounterFileReader, PersistedCounterStore } from '../limits/persisted.ts'
import type { RedisCounterStore } from '../limits/redis/counter-store.ts'
import type { CounterReader, CounterStore } from '../limits/types.ts'
import type { ReadinessCheck } from '../routes/health.ts'
import type { SqliteStorage } from '../storage/sqlite/index.ts'
import { openRedis } from './backends.ts'

interface ServingCounters {
  counters: CounterStore
  /** The `/readyz` line of the counter store, when it has one. */
  readiness: Record<string, ReadinessCheck>
}

/**
 * Where a serving process keeps its counters: Redis when REDIS_URL is set, or the Redis Cluster of
 * REDIS_CLUSTER_NODES (this instance's memory while it is unreachable); otherwise memory persisted to the SQLite file; with
 * PostgreSQL and no Redis, memory only (per instance, lost on restart).
 */
export function servingCounters(
  redis: RedisCounterStore | undefined,
  sqlite: SqliteStorage | undefined,
  { clock, logger, metrics, maxAddresses }: { clock: Clock; logger: Logger; metrics: Metrics; maxAddresses: number }
): ServingCounters {
  if (redis !== undefined) {
    const fallback = new FallbackCounterStore(
      redis,
      metrics.counterStoreEvents({
        degraded: (error) =>
          logger.error({ err: error }, 'redis unreachable: rate limits fall back to per-instance counters until it returns'),
        recovered: () => logger.warn('redis reachable again: rate limits are shared across instances again')
      }),
      { maxAddresses }
    )
    // A cluster that lost a slot's node still connects: its own state tells.
    const check: ReadinessCheck = async () =>
      fallback.degraded ? `degraded: unreachable (${redis.status}), per-instance limits in force` : redis.health()
    return { counters: fallback, readiness: { redis: check } }
  }
  if (sqlite !== undefined) {
    const onError = (error: unknown) => logger.error({ err: error }, 'could not persist rate-limit counters')
    return { counters: new PersistedCounterStore(() => sqlite.counters, clock, { maxAddresses, onError }), readiness: {} }
  }
  logger.warn('no REDIS_URL with a PostgreSQL database: rate limits are per instance and reset on restart')
  return { counters: new MemoryCounterStore({ maxAddresses }), readiness: {} }
}

const NO_COUNTERS: CounterReader = {
  usage: async () => ({ minuteUsed: 0, dayUsed: 0, monthUsed: 0, bannedUntil: null }),
  unban: async () => {},
  bans: async () => [],
  close: async () => {}
}

async function openCliCounters(config: Config, sqlite: SqliteStorage | undefined): Promise<CounterReader> {
  const redis = await openRedis(config, 3000)
  if (redis !== undefined) {
    if (redis.ready) return redis
    await redis.close()
    throw new Error(`redis at ${config.redisUrl === undefined ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'} is unreachable (${redis.status})`)
  }
  if (sqlite !== undefined) return new CounterFileReader(sqlite.counters)
  // PostgreSQL without Redis: counters live only inside each serving process.
  return NO_COUNTERS
}

/**
 * The counters as a process that administers keys sees them, opened on first use: most
 * commands never need them. On the embedded store that is the file a server flushes to.
 */
export function cliCounters(config: Config, sqlite: SqliteStorage | undefined): CounterReader {
  let opened: Promise<CounterReader> | undefined
  const counters = () => (opened ??= openCliCounters(config, sqlite))
  return {
    usage: async (subject, now) => (await counters()).usage(subject, now),
    unban: async (subject, now) => (await counters()).unban(subject, now),
    bans: async (now) => (await counters()).bans(now),
    close: async () => {
      const reader = await opened?.catch(() => undefined)
      await reader?.close()
    }
  }
}
