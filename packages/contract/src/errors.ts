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
  header_fields_too_large: 'The request line and headers are too large (a very long URL included)',
  internal_error: 'An unexpected failure; the request id identifies it in the logs',
  unavailable: 'A backing store is unreachable; retry after Retry-After seconds'
}

export const ErrorCodeSchema = Type.Enum(ERROR_CODES, { description: 'Machine-readable error code' })

export const ErrorBody = Type.Object(
  {
    code: ErrorCodeSchema,
    message: Type.String({ description: 'Human-readable description' }),
    status: Type.Integer({ description: 'The HTTP status code' })
  },
  { additionalProperties: false }
)
export type ErrorBody = Static<typeof ErrorBody>
