import type { Logger } from 'pino'
import { API_VERSION } from '@animal-store/contract'
import { systemClock, type Clock } from './base/clock.ts'
import { createLogger } from './base/logger.ts'
import { PlanBook } from './domain/plans/book.ts'
import { administration, operatorReads, storedLastUse } from './compose/administration.ts'
import { openDatabase, openRedis } from './compose/backends.ts'
import { cliCounters, servingCounters } from './compose/counters.ts'
import { childSpansOf, tracedCounters, tracedStorage } from './tracing/traced-stores.ts'
import { usageHistory } from './compose/usage.ts'
import { petParts } from './compose/pets.ts'
import type { Config } from './config.ts'
import { KeyCache } from './domain/keys/cache.ts'
import { Authenticator } from './http/services/authenticator.ts'
import { Metrics } from './http/services/metrics.ts'
import { SpeculativeReads } from './http/services/speculative-reads.ts'
import { RateLimiter } from './limits/rate-limiter.ts'
import type { CounterStore } from './limits/types.ts'
import type { ReadinessCheck } from './routes/health.ts'
import type { CliServices, Services } from './services.ts'
import type { SqliteStorage } from './storage/sqlite/index.ts'
import type { Storage } from './storage/types.ts'

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
  /** Apply pending migrations first (default); false leaves the schema as it is (an unreachable database in a test). */
  migrate?: boolean
  /** How often usage counts are added to the database (default 10 s). */
  usageFlushIntervalMs?: number
}

/** `work` run on the first call only; every call gets its promise. */
function once(work: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined
  return () => (done ??= work())
}

/**
 * The one composition root: config to storage, counters, clock, metrics and logger, then the
 * services. Every choice of implementation is made here. `serve`, the CLI and every test build
 * through it; the `cli` role is for CLI commands (keys, migrate) that run beside serving processes.
 */
export async function compose(config: Config, options?: ComposeOptions & { role?: 'serve' }): Promise<Services>
export async function compose(config: Config, options: ComposeOptions & { role: 'cli' }): Promise<CliServices>
export async function compose(config: Config, options: ComposeOptions & { role?: 'serve' | 'cli' } = {}): Promise<Services | CliServices> {
  const clock = options.clock ?? systemClock
  const { storage: opened, sqlite } = await openDatabase(config, clock)
  try {
    // Before anything reads a table: the embedded store prepares its statements on first use.
    const migrationsApplied = options.migrate === false ? 0 : await opened.migrate()
    const storage = options.wrapStorage?.(opened) ?? opened
    if (options.role === 'cli') return composeCli(config, clock, storage, sqlite, migrationsApplied)
    return await composeServe(config, clock, storage, sqlite, migrationsApplied, options)
  } catch (error) {
    await opened.close()
    throw error
  }
}

function composeCli(
  config: Config,
  clock: Clock,
  storage: Storage,
  sqlite: SqliteStorage | undefined,
  migrationsApplied: number
): CliServices {
  const counters = cliCounters(config, sqlite)
  const { keys, customers, plans, operators } = administration(storage, clock, counters, { lastUsed: storedLastUse(storage) })
  return {
    config,
    clock,
    storage,
    migrationsApplied,
    keys,
    customers,
    plans,
    operators,
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
  const redis = options.counters === undefined ? await openRedis(config) : undefined
  const system = sqlite === undefined ? 'postgresql' : 'sqlite'
  // Off unless OTEL_* names an endpoint; then OpenTelemetry is loaded, and storage and Redis calls get spans.
  const tracing =
    config.tracing === undefined
      ? undefined
      : (await import('./tracing/otel-tracing.ts')).createOtelTracing(
          config.tracing,
          API_VERSION,
          childSpansOf(system, redis !== undefined)
        )
  if (tracing !== undefined) metrics.countDroppedSpans(() => tracing.droppedSpans)
  const serving =
    options.counters === undefined
      ? servingCounters(redis, sqlite, { clock, logger, metrics, maxAddresses: config.maxAddresses })
      : undefined
  let counters = options.counters ?? serving!.counters
  if (tracing !== undefined && redis !== undefined) counters = tracedCounters(counters, tracing)
  const readiness: Record<string, ReadinessCheck> = { database: () => storage.ping(), ...serving?.readiness }
  const stores = tracing === undefined ? storage : tracedStorage(storage, tracing, system)

  const { pets, pages, purge } = await petParts(config, clock, logger, {
    pets: stores.pets,
    idempotency: stores.idempotency,
    sqlite,
    redis
  })
  const usage = usageHistory(storage.usage, clock, logger, { flushIntervalMs: options.usageFlushIntervalMs })
  // Every plan's limits in memory before the first request, read again every 2 s (a change on another instance).
  const planBook = new PlanBook(storage.plans)
  await planBook.start((error) => logger.warn({ err: error }, 'could not read the plans; keeping the last ones read'))
  const limiter = new RateLimiter(counters, clock, {
    banMs: config.banSeconds * 1000,
    observer: metrics,
    usage: usage.recorder,
    plans: planBook
  })
  // A key this process changes is refused or changed here at once, not after the cache's TTL.
  const keyCache = new KeyCache(stores.keys, clock, { ttlMs: options.keyCacheTtlMs })
  const admin = administration(storage, clock, counters, {
    keys: stores.keys,
    planBook,
    lastUsed: (ids) => usage.service.lastUsedAt(ids),
    keyChanged: (id) => keyCache.forget(id),
    customerChanged: () => keyCache.forgetAll()
  })
  const { keys, customers, plans, operators } = admin
  const { directory, customerDirectory, audit } = operatorReads(stores.keys, storage, clock, {
    counters,
    administration: admin,
    usage: usage.service
  })

  return {
    config,
    clock,
    logger,
    migrationsApplied,
    metrics,
    storage,
    keys,
    customers,
    plans,
    operators,
    directory,
    customerDirectory,
    audit,
    pets,
    pages,
    authenticator: new Authenticator(keyCache, clock),
    limiter,
    usage: usage.service,
    // Reads in-process take microseconds: only a store across the network has a round trip to overlap.
    speculation: sqlite === undefined ? new SpeculativeReads() : undefined,
    readiness,
    tracing,
    close: once(async () => {
      clearInterval(purge)
      planBook.stop()
      // Usage history and counters are flushed before the storage they persist to closes.
      await usage.close()
      await counters.close()
      await storage.close()
      await tracing?.close()
    })
  }
}
