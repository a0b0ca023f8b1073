import { ERROR_CODE_VALUES, type ErrorCode } from './api-types.generated.ts'
import { parseJson } from './json.ts'

export interface AnimalStoreErrorInit {
  code: ErrorCode
  status: number
  message: string
  requestId: string | undefined
  retryAfterMs: number | undefined
  attempts: number
}

/** The service answered with an error, after whatever retries the client was allowed. */
export class AnimalStoreError extends Error {
  override readonly name = 'AnimalStoreError'
  /** One of the documented error codes; branch on this, not on `message`. */
  readonly code: ErrorCode
  /** The HTTP status. */
  readonly status: number
  /** The service's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | undefined
  /** How long the service asked to wait before trying again (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined
  /** Requests made for this call, the failing one included. */
  readonly attempts: number

  constructor(init: AnimalStoreErrorInit) {
    super(init.message)
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.retryAfterMs = init.retryAfterMs
    this.attempts = init.attempts
  }
}

/** No response came back (connection refused or dropped, DNS, timeout), after the allowed retries. */
export class AnimalStoreNetworkError extends Error {
  override readonly name = 'AnimalStoreNetworkError'
  /** Requests made for this call. */
  readonly attempts: number

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause })
    this.attempts = attempts
  }
}

const KNOWN_CODES = new Set<string>(ERROR_CODE_VALUES)

// Only for error responses without our Error body (a proxy's HTML page, a truncated body).
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'unauthorized'
    case 403:
      return 'insufficient_scope'
    case 404:
      return 'not_found'
    case 408:
      return 'request_timeout'
    case 410:
      return 'gone'
    case 413:
      return 'payload_too_large'
    case 429:
      return 'rate_limited'
    case 502:
    case 503:
    case 504:
      return 'unavailable'
    default:
      return status >= 500 ? 'internal_error' : 'bad_request'
  }
}

/** The code and message of an error response: from its Error body, else from its status. */
export function describeErrorResponse(status: number, text: string): { code: ErrorCode; message: string } {
  try {
    const body = parseJson(text) as { code?: unknown; message?: unknown } | null
    if (typeof body?.code === 'string' && KNOWN_CODES.has(body.code) && typeof body.message === 'string') {
      return { code: body.code as ErrorCode, message: body.message }
    }
  } catch {
    // not JSON: described by its status below
  }
  return { code: codeForStatus(status), message: `the service answered ${status} without an Error body` }
}
