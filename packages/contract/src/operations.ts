import Type from 'typebox'
import { ERROR_STATUS, type ErrorCode } from './errors.ts'
import { errorCodesIn, statusesOf, type OperationSpec, type RequestHeaderSpec } from './operation-spec.ts'
import { ListPetsQuery, NewPet, NoQuery, Pet, PetIdParams, Pets } from './pets.ts'
import { EXAMPLE_BUCKETS } from './admin/examples.ts'
import { UsageBuckets, UsageQuery } from './admin/usage/schemas.ts'
import { RateLimitStatus } from './rate-limit.ts'

/** An int64 above 2^53 in every example, so tools and readers see the range is real (bigint keeps every digit). */
const EXAMPLE_CATEGORY_ID = 9223372036854775807n
const EXAMPLE_PET_ID = 9007199254740993n

/** Errors any authenticated operation can answer with. */
export const COMMON_ERRORS: ErrorCode[] = [
  'unauthorized',
  'rate_limited',
  'quota_exceeded',
  'api_key_banned',
  'internal_error',
  'unavailable'
]

export const IDEMPOTENCY_KEY_HEADER: RequestHeaderSpec = {
  name: 'Idempotency-Key',
  description:
    '1 to 255 printable ASCII characters, scoped to the API key and kept 24 hours: ' +
    'the same key with the same body replays the first response and creates nothing',
  schema: Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' })
}

/** When `GET /pets/{petId}` was deprecated (RFC 9745 Deprecation) and when it is removed (RFC 8594 Sunset). */
export const GET_PET_DEPRECATED_SINCE = new Date('2026-01-01T00:00:00Z')
export const GET_PET_SUNSET = new Date('2030-12-05T00:00:00Z')

export const listPets = {
  operationId: 'listPets',
  method: 'GET',
  path: '/pets',
  summary: 'List animals',
  description:
    'Animals in ascending id order, at most `limit` of them, optionally only those in one status. ' +
    'Paging is keyset-based: when more animals follow, the response carries `Link: <...>; rel="next"`; the last page carries none.',
  tags: ['Pets'],
  query: ListPetsQuery,
  success: { status: 200, description: 'A page of animals', schema: Pets, headers: ['Link'] },
  errors: ['validation_failed', 'invalid_cursor', 'insufficient_scope'],
  examples: {
    // No cursor example: one made up would be refused, and Swagger UI's "Try it out" fills examples in.
    parameters: { limit: 2, status: 'available' },
    success: [
      { id: EXAMPLE_PET_ID, name: 'Rex', categoryId: EXAMPLE_CATEGORY_ID, status: 'available' },
      { id: EXAMPLE_PET_ID + 1n, name: 'Tiddles', categoryId: 7, status: 'available' }
    ]
  }
} as const satisfies OperationSpec

export const createPet = {
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  summary: 'Add an animal',
  description:
    'Creates an animal. `status` defaults to `available`. The body must be a JSON object sent as `application/json`, at most 16 KiB.',
  tags: ['Pets'],
  body: NewPet,
  requestHeaders: [IDEMPOTENCY_KEY_HEADER],
  success: { status: 201, description: 'The animal, with its assigned id', schema: Pet, headers: ['Location', 'Idempotent-Replayed'] },
  errors: [
    'bad_request',
    'validation_failed',
    'insufficient_scope',
    'payload_too_large',
    'unsupported_media_type',
    'idempotency_key_in_use',
    'idempotency_key_reused'
  ],
  examples: {
    parameters: { 'Idempotency-Key': 'order-2026-11-25-0042' },
    body: { name: 'Rex', categoryId: EXAMPLE_CATEGORY_ID, status: 'available' },
    success: { id: EXAMPLE_PET_ID, name: 'Rex', categoryId: EXAMPLE_CATEGORY_ID, status: 'available' }
  }
} as const satisfies OperationSpec

export const getPet = {
  operationId: 'getPet',
  method: 'GET',
  path: '/pets/{petId}',
  summary: 'Get an animal (deprecated)',
  description:
    'Deprecated: removed on 5 December 2030 (from then on it answers 410 gone). Use `GET /pets` with the `status` filter instead.',
  tags: ['Pets'],
  deprecated: { since: GET_PET_DEPRECATED_SINCE, sunset: GET_PET_SUNSET, replacement: '/pets' },
  params: PetIdParams,
  query: NoQuery,
  success: { status: 200, description: 'The animal', schema: Pet, headers: ['Deprecation', 'Sunset', 'Link'] },
  // bad_request: a petId that is not valid percent-encoding.
  errors: ['bad_request', 'not_found', 'gone', 'insufficient_scope'],
  examples: {
    parameters: { petId: EXAMPLE_PET_ID },
    success: { id: EXAMPLE_PET_ID, name: 'Rex', categoryId: EXAMPLE_CATEGORY_ID, status: 'sold' }
  }
} as const satisfies OperationSpec

export const getRateLimit = {
  operationId: 'getRateLimit',
  method: 'GET',
  path: '/rate_limit',
  summary: "The caller's rate limits",
  description:
    "The calling key's plan, both windows (limit, remaining, reset) and any ban. Reading it consumes no quota, " +
    'and a banned key gets its ban here with 200. Without a valid key it is 401 like every operation (limited per address then).',
  tags: ['Rate limits'],
  query: NoQuery,
  success: { status: 200, description: "The key's use of its windows", schema: RateLimitStatus, headers: [] },
  errors: ['validation_failed'],
  examples: {
    success: {
      plan: 'free',
      limits: [
        { window: 'minute', limit: 60, remaining: 42, reset: 1781524860 },
        { window: 'day', limit: 1000, remaining: 880, reset: 1781568000 }
      ],
      bannedUntil: null
    }
  },
  // A banned key is answered 200 with its ban; a caller without a key is still throttled (429 rate_limited).
  never: ['api_key_banned']
} as const satisfies OperationSpec

/** `GET /v1/usage` (operationId getUsage): the caller's own history, as operators read a customer's. */
export const getCallerUsage = {
  operationId: 'getUsage',
  method: 'GET',
  path: '/usage',
  summary: "The caller's usage over time",
  description:
    "The requests of the caller's customer (all its keys) by outcome in every bucket of [from, to), empty ones included " +
    '(at most 3,000 buckets; minutes are kept 48 hours, hours 90 days, days 400 days). Reading it consumes no quota, ' +
    'needs no scope and is not itself counted; a banned key gets its history with 200. The current minute may miss up ' +
    'to 15 seconds of requests answered by other instances.',
  tags: ['Usage'],
  query: UsageQuery,
  success: { status: 200, description: 'Buckets, oldest first', schema: UsageBuckets, headers: [] },
  errors: ['validation_failed'],
  examples: {
    parameters: { from: '2026-11-27T10:00:00Z', to: '2026-11-27T10:03:00Z', granularity: 'minute' },
    success: EXAMPLE_BUCKETS
  },
  never: ['api_key_banned']
} as const satisfies OperationSpec

export const OPERATIONS: readonly OperationSpec[] = [listPets, createPet, getPet, getRateLimit, getCallerUsage]

/** Every error code the operation can answer with: its own, then the common ones it does not exclude. */
export function errorCodesOf(op: OperationSpec): ErrorCode[] {
  return errorCodesIn(op, COMMON_ERRORS)
}

export function errorStatuses(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  return statusesOf(codes, ERROR_STATUS)
}
