import Type, { type Static } from 'typebox'

/**
 * The closed set of error codes and the HTTP status each one answers with. The OpenAPI
 * document's `ErrorCode` enum and every error response are generated from this table.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_in_use: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  api_key_banned: 429,
  quota_exceeded: 429,
  header_fields_too_large: 431,
  internal_error: 500,
  unavailable: 503
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  bad_request: 'The body is not parsable JSON, not a JSON object, or the request is malformed',
  validation_failed: 'A field, query parameter or header breaks a rule; the message names it and the rule',
  invalid_cursor: 'The cursor is malformed or was issued for another status filter',
  unauthorized: 'The API key is missing, malformed, unknown, revoked or expired',
  insufficient_scope: "The API key's scopes do not include this operation's (pets:read or pets:write); see WWW-Authenticate",
  not_found: 'No such resource or route',
  method_not_allowed: 'The path exists but not with this method; see the Allow header',
  request_timeout: 'The client took too long to send the request',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still in flight',
  gone: 'The operation has passed its sunset date and was removed',
  payload_too_large: 'The body is larger than 16 KiB',
  unsupported_media_type: 'The body is not sent as application/json',
  expectation_failed: 'The request has an Expect header other than 100-continue',
  idempotency_key_reused: 'This Idempotency-Key was used with a different body',
  rate_limited: 'A rate-limit window is exhausted; retry after Retry-After seconds',
  api_key_banned: 'The API key is temporarily banned for hammering past its limit',
  quota_exceeded: "The customer's monthly quota is spent; Retry-After is the seconds until the month ends (00:00 UTC on the 1st)",
  header_fields_too_large: 'The request line and headers are too large (a very long URL included)',
  internal_error: 'An unexpected failure; the request id identifies it in the logs',
  unavailable: 'A backing store is unreachable; retry after Retry-After seconds'
}

/** A realistic message for each code: the OpenAPI document's example Error bodies. */
export const ERROR_EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  bad_request: 'the body is not valid JSON: unexpected end of input at position 27',
  validation_failed: 'categoryId must be an integer from 1 to 9223372036854775807',
  invalid_cursor: 'cursor is not a cursor from a next link',
  unauthorized: 'the API key is missing, malformed, unknown, revoked or expired',
  insufficient_scope: 'this API key may not create animals: createPet needs the pets:write scope',
  not_found: 'no animal with id 9223372036854775807',
  method_not_allowed: 'DELETE is not allowed on /v1/pets; allowed: GET, POST',
  request_timeout: 'the request was not received in time',
  idempotency_key_in_use: 'a request with this Idempotency-Key is still in flight; retry after it completes',
  gone: 'GET /v1/pets/{petId} was removed on 2030-12-05; use GET /v1/pets',
  payload_too_large: 'the body is larger than 16384 bytes',
  unsupported_media_type: 'the body must be a JSON object sent with Content-Type: application/json',
  idempotency_key_reused: 'this Idempotency-Key was used with a different body',
  rate_limited: 'the minute limit of 60 requests is exhausted; retry after 42 seconds',
  api_key_banned: 'the API key is banned for hammering past its limit; retry after 600 seconds',
  quota_exceeded: 'the monthly quota of 100000 requests for December 2026 is spent; retry after 2183 s, when the month ends',
  header_fields_too_large: 'the request line and headers are larger than 16384 bytes',
  expectation_failed: 'Expect: foo is not supported; only 100-continue is',
  internal_error: 'an unexpected failure; quote request id req-3f9c2b7a1d',
  unavailable: 'the database is unreachable; retry after 1 second'
}

/**
 * The `ErrorCode` enum and the Error body of a listener that answers with `codes`: the public and
 * the operator listener answer errors in one shape and differ only in their codes.
 */
export function errorSchemas<Code extends string>(codes: readonly Code[]) {
  const code = Type.Enum(codes, { description: 'Machine-readable error code' })
  const body = Type.Object(
    {
      code,
      message: Type.String({ description: 'Human-readable description', maxLength: 2000, pattern: '\\S' }),
      status: Type.Integer({ description: 'The HTTP status code', format: 'int32', minimum: 400, maximum: 599 })
    },
    { additionalProperties: false }
  )
  return { code, body }
}

const PUBLIC_ERROR_SCHEMAS = errorSchemas(ERROR_CODES)
export const ErrorCodeSchema = PUBLIC_ERROR_SCHEMAS.code
export const ErrorBody = PUBLIC_ERROR_SCHEMAS.body
export type ErrorBody = Static<typeof ErrorBody>
