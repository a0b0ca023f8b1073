import type { Clock } from '../base/clock.ts'
import type { Config } from '../config.ts'
import type { RedisCounterStore } from '../limits/redis/counter-store.ts'
import type { SqliteStorage } from '../storage/sqlite/index.ts'
import type { Storage } from '../storage/types.ts'

/** How long start-up waits for Redis before serving on per-instance limits. */
const REDIS_STARTUP_WAIT_MS = 3000

/** The database DATABASE_URL names; each backend's module is loaded only when chosen. */
export async function openDatabase(config: Config, clock: Clock): Promise<{ storage: Storage; sqlite: SqliteStorage | undefined }> {
  if (config.database.kind === 'sqlite') {
    const { SqliteStorage } = await import('../storage/sqlite/index.ts')
    const sqlite = new SqliteStorage(config.database.path, clock)
    return { storage: sqlite, sqlite }
  }
  const { PostgresStorage } = await import('../storage/postgres/index.ts')
  return { storage: new PostgresStorage(config.database.url, config.database.pool), sqlite: undefined }
}

/**
 * Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES) for counters (and the pets' change
 * marker), or undefined without either. Not ready within the start-up wait, it is handed out
 * anyway and keeps connecting.
 */
export async function openRedis(config: Config, commandTimeoutMs?: number): Promise<RedisCounterStore | undefined> {
  if (config.redisUrl === undefined && config.redisClusterNodes === undefined) return undefined
  // Loaded only when Redis is configured: the embedded default never loads ioredis.
  const { RedisCounterStore } = await import('../limits/redis/counter-store.ts')
  const redis = new RedisCounterStore({
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    keyPrefix: config.redisKeyPrefix,
    commandTimeoutMs
  })
  await redis.whenReady(REDIS_STARTUP_WAIT_MS)
  return redis
}
