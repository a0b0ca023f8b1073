// The one place the console talks HTTP: the operator API on this origin, with the bearer token.
import type { OperatorErrorBody } from '@animal-store/contract'
import { nextCursor } from './link.ts'

const API_BASE = '/admin/v1'

/** An answer that was not a success, with the Error body's message (or one of our own when there was none). */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
  }
}

type Query = Readonly<Record<string, string | number | undefined>>

export interface Answer<T> {
  body: T
  /** The cursor of the next page, when the answer is a page with more after it. */
  next: string | null
}

interface RequestOptions {
  query?: Query
  body?: unknown
  signal?: AbortSignal
  /** A body that is not JSON (NDJSON, say): its media type, asked for in Accept; the answer's body is then its text. */
  textType?: string
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export type Send = <T>(method: Method, path: string, options?: RequestOptions) => Promise<Answer<T>>

async function errorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as Partial<OperatorErrorBody>
    if (typeof body.message === 'string' && typeof body.code === 'string') return new ApiError(response.status, body.code, body.message)
  } catch {
    // Not an Error body (a proxy's page, say): described below by its status.
  }
  return new ApiError(response.status, 'unexpected', `The operator API answered ${response.status} ${response.statusText}`.trim())
}

/**
 * A sender for one operator token. Every 401 calls `onUnauthorized` (the console then signs
 * out) before the error is thrown to the caller.
 */
export function createSend(token: string, onUnauthorized: (error: ApiError) => void): Send {
  return async <T>(method: Method, path: string, options: RequestOptions = {}): Promise<Answer<T>> => {
    const url = new URL(`${API_BASE}${path}`, window.location.origin)
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value))
    }
    // Error bodies are JSON whatever was asked for.
    const accept = options.textType === undefined ? 'application/json' : `${options.textType}, application/json`
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept }
    const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit', signal: options.signal ?? null }
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      init.body = JSON.stringify(options.body)
    }
    let response: Response
    try {
      response = await fetch(url, init)
    } catch (error) {
      if (options.signal?.aborted === true) throw error
      throw new ApiError(0, 'network', 'The operator API did not answer: is the service running?')
    }
    if (!response.ok) {
      const error = await errorOf(response)
      if (response.status === 401) onUnauthorized(error)
      throw error
    }
    // 204 No Content (a deletion) has no body to read; one asked for as text is not parsed.
    let body: unknown
    if (response.status !== 204) body = options.textType === undefined ? await response.json() : await response.text()
    return { body: body as T, next: nextCursor(response.headers.get('link')) }
  }
}

/** Whether an error only says that a request was abandoned (a newer one replaced it). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError'
}

/** The words to show for an error: the API's message, or the error's own. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
