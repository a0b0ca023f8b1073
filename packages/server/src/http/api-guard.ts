import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../domain/api-error.ts'
import type { ApiKeyRecord } from '../storage/types.ts'
import type { AuthResult, Authenticator } from './auth.ts'
import { routeConfigOf } from './request-context.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The outcome of `Authorization` on a /v1 request; undefined outside /v1. */
    auth: AuthResult | undefined
  }
  interface FastifyContextConfig {
    /** The route needs a valid API key. */
    auth?: boolean
  }
}

/** A step run on every /v1 request after authentication and before the 401 check: rate limiting. Synchronous when it can be. */
export type ApiStep = (request: FastifyRequest, reply: FastifyReply, auth: AuthResult) => void | Promise<void>

export function isApiPath(url: string): boolean {
  return url.startsWith('/v1/') || url === '/v1' || url.startsWith('/v1?')
}

/** Undefined when the request was admitted synchronously (the common case: a cached key, in-process counters). */
export type ApiGuard = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>

/** Runs `steps` from `from` on, in order, waiting only for those that return a promise. */
function runSteps(steps: ApiStep[], from: number, request: FastifyRequest, reply: FastifyReply, auth: AuthResult): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = steps[i]!(request, reply, auth)
    if (pending !== undefined) return pending.then(() => runSteps(steps, i + 1, request, reply, auth))
  }
  return undefined
}

/** A route that needs a key refuses a request without a valid one. */
function requireKey(request: FastifyRequest, auth: AuthResult): void {
  if (!auth.ok && routeConfigOf(request).auth === true) throw auth.error
}

/**
 * Every /v1 request: resolve the key, start the route's arrival work, run the steps (rate
 * limits, which must see unauthenticated requests too), then refuse a route that needs a key
 * without one. All of it runs before the body is read.
 */
export function createApiGuard(authenticator: Authenticator, steps: ApiStep[]): ApiGuard {
  const admit = (request: FastifyRequest, reply: FastifyReply, auth: AuthResult): void | Promise<void> => {
    request.auth = auth
    routeConfigOf(request).onArrival?.(request)
    const pending = runSteps(steps, 0, request, reply, auth)
    if (pending !== undefined) return pending.then(() => requireKey(request, auth))
    requireKey(request, auth)
    return undefined
  }
  // The key store is down: still limit (and label) the request by its address, then answer the 503.
  const unchecked = async (request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<never> => {
    await runSteps(steps, 0, request, reply, { ok: false, error: new ApiError('unauthorized', 'the API key could not be checked') })
    throw error
  }

  return (request, reply) => {
    if (!isApiPath(request.url)) return undefined
    const auth = authenticator.authenticate(request.headers.authorization)
    if (auth instanceof Promise) return auth.then((settled) => admit(request, reply, settled), (error: unknown) => unchecked(request, reply, error))
    return admit(request, reply, auth)
  }
}

/** The API key of a request the guard admitted to a route that needs one. */
export function apiKeyOf(request: FastifyRequest): ApiKeyRecord {
  const auth = request.auth
  if (auth === undefined || !auth.ok) throw new ApiError('unauthorized', 'an API key is required')
  return auth.key
}
