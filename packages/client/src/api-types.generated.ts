// Generated from the OpenAPI document of @animal-store/contract by scripts/generate-api-types.ts.
// Do not edit: run `npm run generate -w @animal-store/client`. A test fails when this file drifts.

/** The version of the interface these types describe. */
export const API_VERSION = '1.0.0'

/** An int64 value: a `number` while it is a safe JavaScript integer, a `bigint` beyond, never rounded. */
export type Int64 = number | bigint

/** An animal as returned */
export interface Pet {
  /**
   * Unique identifier, assigned by the service on creation: 1 to 9223372036854775807, beyond 2^53 (9007199254740991)
   * int64 from 1 to 9223372036854775807: a `number` while safe, a `bigint` beyond
   */
  id: Int64
  /** The animal's name: 1 to 200 characters (Unicode code points), not only white space (Unicode White_Space or U+FEFF), valid Unicode */
  name: string
  /**
   * Identifier of the category the animal belongs to: 1 to 9223372036854775807, beyond 2^53 (9007199254740991)
   * int64 from 1 to 9223372036854775807: a `number` while safe, a `bigint` beyond
   */
  categoryId: Int64
  status: PetStatus
}

/** Request body for creating an animal */
export interface NewPet {
  /** The animal's name: 1 to 200 characters (Unicode code points), not only white space (Unicode White_Space or U+FEFF), valid Unicode */
  name: string
  /**
   * Identifier of the category the animal belongs to: 1 to 9223372036854775807, beyond 2^53 (9007199254740991)
   * int64 from 1 to 9223372036854775807: a `number` while safe, a `bigint` beyond
   */
  categoryId: Int64
  /** Availability status; `available` when omitted */
  status?: PetStatus
}

/** A page of animals in ascending id order, with no envelope */
export type Pets = Pet[]

/** Availability status */
export type PetStatus = 'available' | 'pending' | 'sold'
export const PET_STATUS_VALUES: readonly PetStatus[] = ['available', 'pending', 'sold']

/** The caller's own use of its rate limits; reading it consumes no quota */
export interface RateLimitStatus {
  /** The id of the key's plan */
  plan: string
  /** The per-minute window, then the per-day window, then the calendar month when the customer has a monthly quota */
  limits: RateLimitWindow[]
  /** Unix time in seconds at which the temporary ban ends; null when the key is not banned */
  bannedUntil: Int64 | null
}

/** One rate-limit window of the key */
export interface RateLimitWindow {
  /** The window: a UTC-aligned minute, day or calendar month */
  window: 'minute' | 'day' | 'month'
  /**
   * Requests the window allows
   * int64 from 1 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  limit: Int64
  /**
   * Requests left in the current window
   * int64 from 0 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  remaining: Int64
  /**
   * Unix time in seconds at which the current window ends
   * int64 from 0 to 253402300799: a `number` while safe, a `bigint` beyond
   */
  reset: Int64
}

/** Requests by outcome in one bucket of time */
export interface UsageBucket {
  /** The start of the bucket (UTC) */
  start: string
  /**
   * Requests that passed the rate limiter, whatever the route then answered
   * int64 from 0 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  allowed: Int64
  /**
   * Requests refused 429 rate_limited
   * int64 from 0 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  rateLimited: Int64
  /**
   * Requests refused 429 api_key_banned
   * int64 from 0 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  banned: Int64
  /**
   * Requests refused 429 quota_exceeded: the monthly quota was spent
   * int64 from 0 to 9007199254740991: a `number` while safe, a `bigint` beyond
   */
  quotaExceeded: Int64
}

/** Every bucket of [from, to), oldest first, empty ones included */
export type UsageBuckets = UsageBucket[]

export interface ErrorBody {
  code: ErrorCode
  /** Human-readable description */
  message: string
  /** The HTTP status code */
  status: number
}

/** Machine-readable error code */
export type ErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'invalid_cursor'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'idempotency_key_in_use'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'expectation_failed'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'api_key_banned'
  | 'quota_exceeded'
  | 'header_fields_too_large'
  | 'internal_error'
  | 'unavailable'
export const ERROR_CODE_VALUES: readonly ErrorCode[] = [
  'bad_request',
  'validation_failed',
  'invalid_cursor',
  'unauthorized',
  'insufficient_scope',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'idempotency_key_in_use',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'expectation_failed',
  'idempotency_key_reused',
  'rate_limited',
  'api_key_banned',
  'quota_exceeded',
  'header_fields_too_large',
  'internal_error',
  'unavailable'
]

/** The operations of the API, by operationId: method and path relative to the base address. */
export const OPERATIONS = {
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/{petId}', deprecated: true, sunset: '2030-12-05T00:00:00.000Z' },
  getRateLimit: { method: 'GET', path: '/rate_limit' },
  getUsage: { method: 'GET', path: '/usage' }
} as const

/** The `limit` of listPets: the page sizes the service accepts and the one it uses when none is given. */
export const PAGE_SIZE = { minimum: 1, maximum: 100, default: 20 } as const
