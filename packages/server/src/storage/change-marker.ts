import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { oncePerTurn } from '../per-turn.ts'

/**
 * "The pets changed", kept where every instance sharing a store reads it, so list pages read
 * from a store other instances write can be reused until any of them writes. A create is
 * answered only once it has changed the marker, so whoever saw its 201 never gets a page from
 * before it, on any instance.
 */
export interface ChangeMarker {
  /** The current marker; undefined when it cannot be read (nothing is reused then). */
  read(): Promise<string | undefined>
  /** Changes the marker, after a commit and before its creates are answered. Never rejects. */
  bump(): Promise<void>
}

const freshMarker = () => randomBytes(12).toString('base64url')

/**
 * The marker as a Redis string of random bytes. Random rather than a counter: when Redis
 * loses its data, a counter would start again at values pages were already kept under.
 */
export class RedisChangeMarker implements ChangeMarker {
  readonly #redis: Redis
  readonly #key: string

  constructor(redis: Redis, keyPrefix: string) {
    this.#redis = redis
    this.#key = `${keyPrefix}pets:changed`
  }

  // Reads asked for in one turn share one GET, sent once the turn is over: later than each
  // request's arrival, so still later than any create its client had seen answered.
  readonly read = oncePerTurn(async (): Promise<string | undefined> => {
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
  // pages are reused only for a bounded time (SHARED_PAGE_MAX_AGE_MS) for that reason.
  readonly bump = oncePerTurn(() => this.#redis.set(this.#key, freshMarker()).then(() => {}, () => {}))
}
