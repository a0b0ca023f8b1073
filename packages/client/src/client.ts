import {
  OPERATIONS,
  PAGE_SIZE,
  type Int64,
  type NewPet,
  type Pet,
  type PetStatus,
  type RateLimitStatus,
  type UsageBucket
} from './api-types.generated.ts'
import { readDeprecation, warnOncePerOperation, type DeprecationNotice } from './deprecation.ts'
import { newIdempotencyKey } from './idempotency-key.ts'
import { stringifyJson } from './json.ts'
import { findLink } from './link-header.ts'
import type { RateLimitState } from './rate-limit-state.ts'
import { DEFAULT_RETRY_POLICY, sleep, type RetryPolicy } from './retry-policy.ts'
import { send, type FetchFunction, type SleepFunction, type TransportOptions } from './transport.ts'

export interface ClientOptions extends Partial<RetryPolicy> {
  /** The service's `{base_url}`, ending in `/v1`, e.g. `https://api.example.com/v1`. */
  baseUrl: string
  /** An API key (`as_live_...`), sent as the bearer token. */
  apiKey: string
  /** The fetch to use; the platform's by default. */
  fetch?: FetchFunction
  /** The longest one attempt may take, body included, before it counts as a network failure (default 30 000 ms). */
  timeoutMs?: number
  /** Called with what each response of a deprecated operation says; by default one `console.warn` per operation. */
  onDeprecation?: (notice: DeprecationNotice) => void
  /** How the client waits between attempts; tests pass one that moves a clock instead. */
  sleep?: SleepFunction
  /** A number in [0, 1) for backoff jitter; `Math.random` by default. */
  random?: () => number
}

export interface CallOptions {
  /** Aborts the call, including a wait between attempts; the call rejects with the signal's reason. */
  signal?: AbortSignal
}

export interface CreatePetOptions extends CallOptions {
  /** Sent as `Idempotency-Key` on every attempt; a fresh random one when not given. */
  idempotencyKey?: string
}

export interface ListPetsParams {
  /** Only pets in this status. */
  status?: PetStatus
  /** Page size, 1 to 100 (the service's default is 20). */
  limit?: number
  /** `nextCursor` of the previous page, with the same `status`. */
  cursor?: string
}

export interface PetPage {
  /** In ascending id order. */
  pets: Pet[]
  /** Pass as `cursor` for the following page; null on the last page. */
  nextCursor: string | null
}

/** [from, to) as ISO 8601 (24 hours before `to`, and now, when omitted); the finest granularity that fits unless given. */
export interface UsageParams {
  from?: string
  to?: string
  granularity?: 'minute' | 'hour' | 'day'
}

export interface AllPetsParams {
  status?: PetStatus
  /** Pets per request, 1 to 100 (default 100, the fewest requests). */
  pageSize?: number
}

const DEFAULT_TIMEOUT_MS = 30_000

function petPath(id: Int64): string {
  return OPERATIONS.getPet.path.replace('{petId}', encodeURIComponent(String(id)))
}

/** A client of the animal-store API. Create one with `createClient`. */
export class AnimalStoreClient {
  readonly #transport: TransportOptions
  readonly #onDeprecation: (notice: DeprecationNotice) => void
  #rateLimit: RateLimitState | undefined

  constructor(options: ClientOptions) {
    const { baseUrl, apiKey, fetch, timeoutMs, onDeprecation, sleep: sleepOption, random, ...policy } = options
    if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl))
      throw new TypeError('baseUrl must be an http(s) URL such as https://api.example.com/v1')
    if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('apiKey is required')
    this.#transport = {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      // Called as a plain function: browsers refuse `fetch` invoked as a method of another object.
      fetch: fetch ?? ((input, init) => globalThis.fetch(input, init)),
      policy: { ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)) },
      timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
      sleep: sleepOption ?? sleep,
      random: random ?? Math.random,
      onRateLimit: (state) => {
        this.#rateLimit = state
      }
    }
    this.#onDeprecation = onDeprecation ?? warnOncePerOperation()
  }

  /**
   * The rate-limit headers of the latest response that carried them: the window in force
   * (`limit`, `remaining`, `reset`) and every window of the `RateLimit` field. No request is made.
   */
  get lastRateLimit(): RateLimitState | undefined {
    return this.#rateLimit
  }

  /**
   * The key's own use, asked of the service (`GET /rate_limit`): its plan, its windows (minute, day,
   * and month when its customer has a monthly quota: `limit`, `remaining`, `reset` in Unix seconds)
   * and `bannedUntil`. Consumes no quota, and answers while the key is banned too.
   */
  async rateLimit(options: CallOptions = {}): Promise<RateLimitStatus> {
    const { method, path } = OPERATIONS.getRateLimit
    const response = await send(this.#transport, { method, path, signal: options.signal })
    return response.body as RateLimitStatus
  }

  /**
   * The requests of the key's customer (all its keys) by outcome, bucket by bucket (`GET /usage`):
   * `{start, allowed, rateLimited, banned, quotaExceeded}`, oldest first, empty buckets included. Consumes no quota.
   */
  async usage(params: UsageParams = {}, options: CallOptions = {}): Promise<UsageBucket[]> {
    const { method, path } = OPERATIONS.getUsage
    const query = { from: params.from, to: params.to, granularity: params.granularity }
    const response = await send(this.#transport, { method, path, query, signal: options.signal })
    return response.body as UsageBucket[]
  }

  /** One page of pets in ascending id order (`GET /pets`). */
  async listPets(params: ListPetsParams = {}, options: CallOptions = {}): Promise<PetPage> {
    const response = await send(this.#transport, {
      method: OPERATIONS.listPets.method,
      path: OPERATIONS.listPets.path,
      query: { limit: params.limit?.toString(), status: params.status, cursor: params.cursor },
      signal: options.signal
    })
    const next = findLink(response.headers.get('link'), 'next')
    // The link names the service's public address, which a proxy may hide; only its cursor matters.
    const nextCursor = next === undefined ? null : new URL(next, this.#transport.baseUrl).searchParams.get('cursor')
    return { pets: response.body as Pet[], nextCursor }
  }

  /**
   * Every pet, page after page, following the `next` links: `for await (const pet of client.allPets())`.
   * Pets created during the walk appear at most once, on a later page.
   */
  async *allPets(params: AllPetsParams = {}, options: CallOptions = {}): AsyncGenerator<Pet, void, undefined> {
    let cursor: string | undefined
    do {
      const page = await this.listPets({ status: params.status, limit: params.pageSize ?? PAGE_SIZE.maximum, cursor }, options)
      yield* page.pets
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
  }

  /**
   * Adds a pet (`POST /pets`). Every attempt carries the same `Idempotency-Key`, so a
   * retry after a lost response cannot add it twice. A `bigint` `categoryId` is sent exactly.
   */
  async createPet(pet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    const response = await send(this.#transport, {
      method: OPERATIONS.createPet.method,
      path: OPERATIONS.createPet.path,
      body: stringifyJson(pet),
      headers: { 'idempotency-key': options.idempotencyKey ?? newIdempotencyKey() },
      signal: options.signal
    })
    return response.body as Pet
  }

  /**
   * One pet by id (`GET /pets/{petId}`).
   *
   * @deprecated The service removes this operation on 2030-12-05 (its `Sunset` header;
   * from then on the call fails with code `gone`). Use `listPets({ status })` or
   * `allPets({ status })` instead. Each call reports the service's `Deprecation` and
   * `Sunset` dates to the `onDeprecation` option.
   */
  async getPet(id: Int64, options: CallOptions = {}): Promise<Pet> {
    const response = await send(this.#transport, { method: OPERATIONS.getPet.method, path: petPath(id), signal: options.signal })
    const notice = readDeprecation('getPet', response.headers)
    if (notice !== undefined) this.#onDeprecation(notice)
    return response.body as Pet
  }
}

/** A client for the service at `baseUrl` (the `{base_url}`, ending in `/v1`), authenticated with `apiKey`. */
export function createClient(options: ClientOptions): AnimalStoreClient {
  return new AnimalStoreClient(options)
}
