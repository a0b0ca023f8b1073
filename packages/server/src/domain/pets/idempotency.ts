import { createHash } from 'node:crypto'
import { stringifyJson } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { Pet } from '@animal-store/contract'
import {
  IdempotencyClaimLostError,
  type IdempotencyClaim,
  type IdempotencyCompletion,
  type IdempotencyScope,
  type IdempotencyStore,
  type StoredResponse
} from '../../storage/pets/idempotency.ts'
import { ApiError } from '../api-error.ts'

/** How long a completed response is replayed (DESIGN §3). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** An unfinished claim older than this was abandoned (its process died): another request may take it over. */
const IDEMPOTENCY_STALE_CLAIM_MS = 60_000

const KEY_SHAPE = /^[\x20-\x7E]{1,255}$/

/**
 * The Idempotency-Key header, checked; undefined when absent. `rawHeaders` tells a key sent
 * twice (which Node joins with ", ") from one that contains ", ".
 */
export function idempotencyKeyOf(header: string | string[] | undefined, rawHeaders: readonly string[]): string | undefined {
  if (header === undefined) return undefined
  let sent = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') sent++
  if (Array.isArray(header) || sent > 1 || !KEY_SHAPE.test(header)) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once')
  }
  return header
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

/** The same JSON value gives the same fingerprint, whatever its key order and white space. */
function fingerprintOf(body: unknown): string {
  return createHash('sha256')
    .update(stringifyJson(canonical(body)))
    .digest('hex')
}

/** Claims an Idempotency-Key for a request, with the time rules of DESIGN §3. */
export class IdempotencyService {
  readonly #store: IdempotencyStore
  readonly #clock: Clock

  constructor(store: IdempotencyStore, clock: Clock) {
    this.#store = store
    this.#clock = clock
  }

  /** Returns the claim token, or throws the 409/422 the claim answers, or returns the stored response to replay. */
  async #claim(scope: IdempotencyScope, body: unknown): Promise<Extract<IdempotencyClaim, { state: 'claimed' | 'completed' }>> {
    const now = this.#clock.now()
    const fingerprint = fingerprintOf(body)
    const claim = await this.#store.claim(scope, fingerprint, now, {
      expiredBefore: now - IDEMPOTENCY_TTL_MS,
      staleBefore: now - IDEMPOTENCY_STALE_CLAIM_MS
    })
    if (claim.state !== 'claimed' && claim.fingerprint !== fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        'this Idempotency-Key was already used with a different body; use a new key for a different request'
      )
    }
    if (claim.state === 'in_flight') {
      throw new ApiError('idempotency_key_in_use', 'a request with this Idempotency-Key is still in flight; retry after it completes', {
        'retry-after': '1'
      })
    }
    return claim
  }

  /**
   * Runs `create` once per scope: the same body again replays the first response; a failed
   * create frees the key for a retry. `respond` is the response a repeat will replay, stored
   * in the same transaction as the pet.
   */
  async createOnce(
    scope: IdempotencyScope,
    body: unknown,
    respond: (pet: Pet) => StoredResponse,
    create: (completion: IdempotencyCompletion) => Promise<Pet>
  ): Promise<{ pet: Pet } | { replay: StoredResponse }> {
    const claim = await this.#claim(scope, body)
    if (claim.state === 'completed') return { replay: claim.response }
    try {
      return { pet: await create({ scope, token: claim.token, respond }) }
    } catch (error) {
      await this.#store.release(scope, claim.token).catch(() => {})
      if (!(error instanceof IdempotencyClaimLostError)) throw error
      throw new ApiError('idempotency_key_in_use', 'another request took over this Idempotency-Key; retry to get its response', {
        'retry-after': '1'
      })
    }
  }

  /** Forgets records past their 24 hours; returns how many. */
  purgeExpired(): Promise<number> {
    return this.#store.purge(this.#clock.now() - IDEMPOTENCY_TTL_MS)
  }
}
