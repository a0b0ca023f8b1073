import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import type { Pet } from '@animal-store/contract'
import { oncePerTurn } from '../../base/per-turn.ts'
import type { IdempotencyCompletion } from '../pets/idempotency.ts'
import type { NewPetRecord, PetPageQuery, PetStore, PetsVersion } from '../pets/types.ts'

const freshMarker = () => randomBytes(12).toString('base64url')

/**
 * "The pets changed", kept in Redis where every instance sharing a store reads it, so list
 * pages read from a store other instances write can be reused until any of them writes. The
 * marker is random bytes rather than a counter: when Redis loses its data, a counter would
 * start again at values pages were already kept under.
 */
export class RedisChangeMarker implements PetsVersion {
  readonly #redis: Redis | Cluster
  readonly #key: string

  constructor(redis: Redis | Cluster, keyPrefix: string) {
    this.#redis = redis
    this.#key = `${keyPrefix}pets:changed`
  }

  // Reads asked for in one turn share one GET, sent once the turn is over: later than each
  // request's arrival, so still later than any create its client had seen answered.
  readonly current = oncePerTurn(async (): Promise<string | undefined> => {
    try {
      const marker = await this.#redis.get(this.#key)
      if (marker !== null) return marker
      // None yet (a fresh Redis, or one that lost its data): a new one, whoever sets it first.
      await this.#redis.set(this.#key, freshMarker(), 'NX')
      return (await this.#redis.get(this.#key)) ?? undefined
    } catch {
      return undefined
    }
  })

  // The creates of one commit resolve in one turn: they share one write, sent after all of
  // them committed. A failed write is not the create's failure: the pet is committed, and
  // shared pages are reused only for a bounded time for that reason.
  readonly bump = oncePerTurn(() =>
    this.#redis.set(this.#key, freshMarker()).then(
      () => {},
      () => {}
    )
  )
}

/**
 * A pet store whose every create changes the marker after its commit and before it is
 * answered, so whoever saw a 201 never gets a page from before it, on any instance.
 */
export class MarkedPetStore implements PetStore {
  readonly #inner: PetStore
  readonly #marker: RedisChangeMarker

  constructor(inner: PetStore, marker: RedisChangeMarker) {
    this.#inner = inner
    this.#marker = marker
  }

  async create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet> {
    const created = await this.#inner.create(pet, idempotency)
    await this.#marker.bump()
    return created
  }

  page(query: PetPageQuery) {
    return this.#inner.page(query)
  }

  get(id: Pet['id']) {
    return this.#inner.get(id)
  }
}
