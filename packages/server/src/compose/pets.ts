import type { Logger } from 'pino'
import type { Clock } from '../base/clock.ts'
import type { Config } from '../config.ts'
import { IdempotencyService } from '../domain/pets/idempotency.ts'
import { PetService } from '../domain/pets/service.ts'
import { CachedPages, type PetPages } from '../http/services/page-cache.ts'
import type { RedisCounterStore } from '../limits/redis/counter-store.ts'
import { renderedPages } from '../routes/pets/rendered-pages.ts'
import type { IdempotencyStore } from '../storage/pets/idempotency.ts'
import type { PetStore, PetsVersion } from '../storage/pets/types.ts'
import type { SqliteStorage } from '../storage/sqlite/index.ts'

/** How often completed Idempotency-Key records older than 24 hours are swept out. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000
/**
 * How long a page read from a store other instances write is reused at most. Every create
 * made through the service changes the marker at once; this bounds what it cannot see: a
 * change made outside the service (SQL by hand) or a marker write that failed.
 */
export const SHARED_PAGE_MAX_AGE_MS = 2000

/**
 * The pets as the app serves them: the service over the store (behind the change marker when
 * instances share PostgreSQL), its rendered pages (cached while the pets' version stands still),
 * and the sweep of expired Idempotency-Key records (`purge`, to clear at close).
 */
export async function petParts(
  config: Config,
  clock: Clock,
  logger: Logger,
  parts: { pets: PetStore; idempotency: IdempotencyStore; sqlite: SqliteStorage | undefined; redis: RedisCounterStore | undefined }
): Promise<{ pets: PetService; pages: PetPages; purge: NodeJS.Timeout }> {
  // The pets' version, where one can be known: this process's own writes on the embedded file;
  // with PostgreSQL, a marker in Redis that every instance's creates change.
  let petStore: PetStore = parts.pets
  let version: PetsVersion | undefined = parts.sqlite?.pets
  let maxAgeMs: number | undefined
  if (parts.sqlite === undefined && parts.redis !== undefined) {
    const { MarkedPetStore, RedisChangeMarker } = await import('../storage/redis/change-marker.ts')
    // On the connection the counters already keep open.
    const marker = new RedisChangeMarker(parts.redis.redis, config.redisKeyPrefix)
    petStore = new MarkedPetStore(parts.pets, marker)
    version = marker
    maxAgeMs = SHARED_PAGE_MAX_AGE_MS
  }

  const idempotency = new IdempotencyService(parts.idempotency, clock)
  const pets = new PetService(petStore, { clock, idempotency, locationOf: (pet) => `${config.publicBaseUrl}/pets/${String(pet.id)}` })
  const rendered = renderedPages(pets, config.publicBaseUrl)
  const pages =
    version === undefined || config.pageCacheEntries === 0
      ? rendered
      : new CachedPages(rendered, version, clock, { maxEntries: config.pageCacheEntries, maxAgeMs })

  // Replayable responses are kept 24 hours; older ones are swept out every 10 minutes.
  const purge = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, 'could not purge expired idempotency keys'))
  }, IDEMPOTENCY_PURGE_INTERVAL_MS)
  purge.unref()
  return { pets, pages, purge }
}
