import type { Logger } from 'pino'
import { systemClock, type Clock } from './base/clock.ts'
import { createLogger } from './base/logger.ts'
import type { Config } from './config.ts'
import { IdempotencyService } from './domain/idempotency.ts'
import { KeyCache } from './domain/key-cache.ts'
import { KeyService } from './domain/keys.ts'
import { PetService } from './domain/pets.ts'
import { Authenticator } from './http/auth.ts'
import { CachedPages, renderedPages, type PetPages } from './http/list-pages.ts'
import { Metrics } from './http/metrics.ts'
import { SpeculativeReads } from './http/speculative-reads.ts'
import { FallbackCounterStore } from './limits/fallback.ts'
import { MemoryCounterStore } from './limits/memory.ts'
import { CounterFileReader, PersistedCounterStore } from './limits/persisted.ts'
import { keyLimitState, RateLimiter } from './limits/rate-limiter.ts'
import type { CounterReader, CounterStore } from './limits/types.ts'
import type { ReadinessCheck } from './routes/health.ts'
import type { SqliteStorage } from './storage/sqlite/index.ts'
import type { CounterFile, PetStore, PetsVersion, Storage } from './storage/types.ts'

/** Replaceable parts a test (or a benchmark) hands in; everything else follows from the config. */
export interface ComposeOptions {
  clock?: Clock
  logger?: Logger
  /** How long a key lookup is trusted; a revocation shows within this (default 2 s). */
  keyCacheTtlMs?: number
  /** Where rate-limit counters live, instead of the store the config names. */
  counters?: CounterStore
  /** Wraps the storage the config names (a test injects faults this way). */
  wrapStorage?: (storage: Storage) => Storage
  /** Apply pending migrations first (default); false to leave the schema as it is (a test's unreachable database, or one it migrates itself). */
  migrate?: boolean
}

/** What key administration needs (`animal-store keys ...`, `migrate`). */
export interface AdminServices {
  config: Config
  clock: Clock
  storage: Storage
  /** Migrations this start applied. */
  migrationsApplied: number
  keys: KeyService
  /** Closes the counters, then the storage. */
  close(): Promise<void>
}

/** Everything the serving app is built from. */
export interface Services extends AdminServices {
  logger: Logger
  metrics: Metrics
  pets: PetService
  pages: PetPages
  authenticator: Authenticator
  limiter: RateLimiter
  /** Present when reads may start before their rate-limit verdict (counters across the network). */
  speculation: SpeculativeReads | undefined
  readiness: Record<string, ReadinessCheck>
}

/** How long start-up waits for Redis before serving on per-instance limits. */
const REDIS_STARTUP_WAIT_MS = 3000
/** How often completed Idempotency-Key records older than 24 hours are swept out. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000
/**
 * How long a page read from a store other instances write is reused at most. Every create
 * made through the service changes the marker at once; this bounds what it cannot see: a
 * change made outside the service (SQL by hand) or a marker write that failed.
 */
export const SHARED_PAGE_MAX_AGE_MS = 2000

/** The database DATABASE_URL names; each backend's module is loaded only when chosen. */
async function openDatabase(config: Config, clock: Clock): Promise<{ storage: Storage, sqlite: SqliteStorage | undefined }> {
  if (config.database.kind === 'sqlite') {
    const { SqliteStorage } = await import('./storage/sqlite/index.ts')
    const sqlite = new SqliteStorage(config.database.path, clock)
    return { storage: sqlite, sqlite }
  }
  const { PostgresStorage } = await import('./storage/postgres/index.ts')
  return { storage: new PostgresStorage(config.database.url, config.database.pool), sqlite: undefined }
}

/** Redis for counters (and the pets' change marker), or undefined without REDIS_URL. */
async function openRedis(config: Config, commandTimeoutMs?: number) {
  if (config.redisUrl === undefined) return undefined
  // Loaded only when Redis is configured: the embedded default never loads ioredis.
  const { RedisCounterStore } = await import('./limits/redis.ts')
  const redis = new RedisCounterStore({ url: config.redisUrl, keyPrefix: config.redisKeyPrefix, commandTimeoutMs })
  await redis.whenReady(REDIS_STARTUP_WAIT_MS)
  return redis
}

/** `work` run on the first call only; every call gets its promise. */
function once(work: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined
  return () => (done ??= work())
}

const NO_COUNTERS: CounterReader = {
  usage: async () => ({ minuteUsed: 0, dayUsed: 0, bannedUntil: null }),
  unban: async () => {},
  close: async () => {}
}

/**
 * The one composition root: config to storage, counters, clock, metrics and logger, then the
 * services. Every choice of implementation is made here. `serve`, the CLI and every test build
 * through it; the `admin` role is for processes that administer keys while servers run.
 */
export async function compose(config: Config, options?: ComposeOptions & { role?: 'serve' }): Promise<Services>
export async function compose(config: Config, options: ComposeOptions & { role: 'admin' }): Promise<AdminServices>
export async function compose(config: Config, options: ComposeOptions & { role?: 'serve' | 'admin' } = {}): Promise<Services | AdminServices> {
  const clock = options.clock ?? systemClock
  const { storage: opened, sqlite } = await openDatabase(config, clock)
  try {
    // Before anything reads a table: the embedded store prepares its statements on first use.
    const migrationsApplied = options.migrate === false ? 0 : await opened.migrate()
    const storage = options.wrapStorage?.(opened) ?? opened
    if (options.role === 'admin') return composeAdmin(config, clock, storage, sqlite, migrationsApplied)
    return await composeServe(config, clock, storage, sqlite, migrationsApplied, options)
  } catch (error) {
    await opened.close()
    throw error
  }
}

/** Counters opened on first use: most commands never need them, and a fresh file has no tables yet. */
function lazyCounters(open: () => Promise<CounterReader>): CounterReader {
  let opened: Promise<CounterReader> | undefined
  const counters = () => (opened ??= open())
  return {
    usage: async (subject, now) => (await counters()).usage(subject, now),
    unban: async (subject, now) => (await counters()).unban(subject, now),
    close: async () => {
      const reader = await opened?.catch(() => undefined)
      await reader?.close()
    }
  }
}

async function openAdminCounters(config: Config, counterFile: (() => CounterFile) | undefined): Promise<CounterReader> {
  if (config.redisUrl !== undefined) {
    const redis = (await openRedis(config, 3000))!
    if (redis.ready) return redis
    await redis.close()
    throw new Error(`redis at REDIS_URL is unreachable (${redis.status})`)
  }
  if (counterFile !== undefined) return new CounterFileReader(counterFile())
  // PostgreSQL without Redis: counters live only inside each serving process.
  return NO_COUNTERS
}

function composeAdmin(config: Config, clock: Clock, storage: Storage, sqlite: SqliteStorage | undefined, migrationsApplied: number): AdminServices {
  const counters = lazyCounters(() => openAdminCounters(config, sqlite === undefined ? undefined : () => sqlite.counters))
  return {
    config,
    clock,
    storage,
    migrationsApplied,
    keys: new KeyService(storage.keys, clock, keyLimitState(counters)),
    close: once(async () => {
      await counters.close()
      await storage.close()
    })
  }
}

async function composeServe(
  config: Config,
  clock: Clock,
  storage: Storage,
  sqlite: SqliteStorage | undefined,
  migrationsApplied: number,
  options: ComposeOptions
): Promise<Services> {
  const logger = options.logger ?? createLogger(config.logLevel)
  const metrics = new Metrics(clock)
  const readiness: Record<string, ReadinessCheck> = { database: () => storage.ping() }
  const redis = options.counters === undefined ? await openRedis(config) : undefined
  let counters: CounterStore
  if (options.counters !== undefined) {
    counters = options.counters
  } else if (redis !== undefined) {
    const fallback = new FallbackCounterStore(
      redis,
      metrics.counterStoreEvents({
        degraded: (error) => logger.error({ err: error }, 'redis unreachable: rate limits fall back to per-instance counters until it returns'),
        recovered: () => logger.warn('redis reachable again: rate limits are shared across instances again')
      })
    )
    readiness.redis = async () => (fallback.degraded ? `degraded: unreachable (${redis.status}), per-instance limits in force` : 'ok')
    counters = fallback
  } else if (sqlite !== undefined) {
    counters = new PersistedCounterStore(() => sqlite.counters, clock, (error) => logger.error({ err: error }, 'could not persist rate-limit counters'))
  } else {
    logger.warn('no REDIS_URL with a PostgreSQL database: rate limits are per instance and reset on restart')
    counters = new MemoryCounterStore()
  }

  // The pets' version, where one can be known: this process's own writes on the embedded file;
  // with PostgreSQL, a marker in Redis that every instance's creates change.
  let petStore: PetStore = storage.pets
  let version: PetsVersion | undefined = sqlite?.pets
  let maxAgeMs: number | undefined
  if (sqlite === undefined && redis !== undefined) {
    const { MarkedPetStore, RedisChangeMarker } = await import('./storage/shared-change-marker.ts')
    // On the connection the counters already keep open.
    const marker = new RedisChangeMarker(redis.redis, config.redisKeyPrefix)
    petStore = new MarkedPetStore(storage.pets, marker)
    version = marker
    maxAgeMs = SHARED_PAGE_MAX_AGE_MS
  }

  const idempotency = new IdempotencyService(storage.idempotency, clock)
  const pets = new PetService(petStore, { clock, idempotency, locationOf: (pet) => `${config.publicBaseUrl}/pets/${String(pet.id)}` })
  const rendered = renderedPages(pets, config.publicBaseUrl)
  const pages = version === undefined || config.pageCacheEntries === 0 ? rendered : new CachedPages(rendered, version, clock, { maxEntries: config.pageCacheEntries, maxAgeMs })
  const limiter = new RateLimiter(counters, clock, { banMs: config.banSeconds * 1000, observer: metrics })

  // Replayable responses are kept 24 hours; older ones are swept out every 10 minutes.
  const purge = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, 'could not purge expired idempotency keys'))
  }, IDEMPOTENCY_PURGE_INTERVAL_MS)
  purge.unref()

  return {
    config,
    clock,
    logger,
    migrationsApplied,
    metrics,
    storage,
    keys: new KeyService(storage.keys, clock, keyLimitState(counters)),
    pets,
    pages,
    authenticator: new Authenticator(new KeyCache(storage.keys, clock, { ttlMs: options.keyCacheTtlMs }), clock),
    limiter,
    // Reads in-process take microseconds: only a store across the network has a round trip to overlap.
    speculation: sqlite === undefined ? new SpeculativeReads() : undefined,
    readiness,
    close: once(async () => {
      clearInterval(purge)
      // Counters are flushed before the storage they may persist to closes.
      await counters.close()
      await storage.close()
    })
  }
}
