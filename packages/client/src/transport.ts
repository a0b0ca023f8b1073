import { AnimalStoreError, AnimalStoreNetworkError, describeErrorResponse } from './errors.ts'
import { parseJson } from './json.ts'
import { readRateLimit, type RateLimitState } from './rate-limit-state.ts'
import { parseRetryAfter, retryDelay, type RetryPolicy } from './retry-policy.ts'

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>

export interface TransportOptions {
  /** The `{base_url}`, ending in `/v1`, without a trailing slash. */
  baseUrl: string
  apiKey: string
  fetch: FetchFunction
  policy: RetryPolicy
  /** The longest one attempt may take, body included, before it counts as a network failure. */
  timeoutMs: number
  sleep: SleepFunction
  random: () => number
  onRateLimit: (state: RateLimitState) => void
}

export interface ApiRequest {
  method: 'GET' | 'POST'
  /** Relative to the base address, e.g. `/pets`. */
  path: string
  query?: Record<string, string | undefined>
  /** A JSON text. */
  body?: string
  /** Sent unchanged on every attempt, so an `Idempotency-Key` covers the retries. */
  headers?: Record<string, string>
  signal?: AbortSignal | undefined
}

export interface ApiResponse {
  status: number
  headers: Headers
  body: unknown
  attempts: number
}

type Outcome = { response: Response; text: string } | { networkError: unknown }

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? `${error.message} (${code})` : error.message
}

function urlOf(options: TransportOptions, request: ApiRequest): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) query.set(name, value)
  }
  const search = query.toString()
  return `${options.baseUrl}${request.path}${search === '' ? '' : `?${search}`}`
}

/** One request and its whole body, within the attempt timeout; aborting `signal` rejects with its reason. */
async function attempt(options: TransportOptions, url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Outcome> {
  const controller = new AbortController()
  const onAbort = () => controller.abort(signal!.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => controller.abort(new Error(`no response within ${options.timeoutMs} ms`)), options.timeoutMs)
  try {
    const response = await options.fetch(url, { ...init, signal: controller.signal })
    return { response, text: await response.text() }
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason
    return { networkError: controller.signal.aborted ? controller.signal.reason : error }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * Sends a request, retrying 429, 503 and network failures with backoff that honours
 * `Retry-After`, within the policy's attempts and total wait; any other error response,
 * and one whose `Retry-After` is longer than the wait left, is thrown at once as an AnimalStoreError.
 */
export async function send(options: TransportOptions, request: ApiRequest): Promise<ApiResponse> {
  const url = urlOf(options, request)
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${options.apiKey}`, ...request.headers }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const init: RequestInit = { method: request.method, headers, body: request.body }
  const repeatable = headers['idempotency-key'] !== undefined
  const { signal } = request
  let waitedMs = 0

  for (let attempts = 1; ; attempts++) {
    signal?.throwIfAborted()
    const outcome = await attempt(options, url, init, signal)
    let failure: AnimalStoreError | AnimalStoreNetworkError
    let retryAfterMs: number | undefined
    let retryable: boolean

    if ('response' in outcome) {
      const { response, text } = outcome
      const rateLimit = readRateLimit(response.headers)
      if (rateLimit !== undefined) options.onRateLimit(rateLimit)
      const requestId = response.headers.get('x-request-id') ?? undefined
      if (response.ok) {
        try {
          return { status: response.status, headers: response.headers, body: parseJson(text), attempts }
        } catch {
          throw new AnimalStoreError({
            code: 'internal_error',
            status: response.status,
            message: `the service answered ${response.status} with a body that is not JSON`,
            requestId,
            retryAfterMs: undefined,
            attempts
          })
        }
      }
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now())
      const { code, message } = describeErrorResponse(response.status, text)
      failure = new AnimalStoreError({ code, status: response.status, message, requestId, retryAfterMs, attempts })
      retryable =
        response.status === 429 ||
        response.status === 503 ||
        // Our own earlier attempt may still be running on the service after we gave up on it.
        (code === 'idempotency_key_in_use' && repeatable && attempts > 1)
      // Without Retry-After a ban's or a spent month's length is unknown, and trying again cannot help.
      if ((code === 'api_key_banned' || code === 'quota_exceeded') && retryAfterMs === undefined) retryable = false
    } else {
      failure = new AnimalStoreNetworkError(
        `${request.method} ${url} failed: ${describeCause(outcome.networkError)}`,
        attempts,
        outcome.networkError
      )
      retryable = true
    }

    if (!retryable || attempts > options.policy.maxRetries) throw failure
    const delay = retryDelay(attempts - 1, retryAfterMs, options.policy, options.random)
    // A Retry-After past the budget left (a ban, a spent day, a monthly quota until the month ends)
    // is thrown at once: an early retry would be refused again and count towards a ban.
    if (waitedMs + delay > options.policy.maxTotalWaitMs) throw failure
    await options.sleep(delay, signal)
    waitedMs += delay
  }
}
