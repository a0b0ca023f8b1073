import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../domain/api-error.ts'
import type { ApiKeyRecord } from '../storage/types.ts'
import type { AuthResult, Authenticator } from './auth.ts'

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

/** A step run on every /v1 request after authentication and before the 401 check: rate limiting. */
export type ApiStep = (request: FastifyRequest, reply: FastifyReply, auth: AuthResult) => Promise<void>

export function isApiPath(url: string): boolean {
  return url.startsWith('/v1/') || url === '/v1' || url.startsWith('/v1?')
}

export type ApiGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/**
 * Every /v1 request: resolve the key, run the steps (rate limits, which must see
 * unauthenticated requests too), then refuse a route that needs a key without one.
 * All of it runs before the body is read.
 */
export function createApiGuard(authenticator: Authenticator, steps: ApiStep[]): ApiGuard {
  return async (request, reply) => {
    if (!isApiPath(request.url)) return
    let auth: AuthResult
    try {
      auth = await authenticator.authenticate(request.headers.authorization)
    } catch (error) {
      // The key store is down: still limit (and label) the request by its address, then answer the 503.
      const anonymous: AuthResult = { ok: false, error: new ApiError('unauthorized', 'the API key could not be checked') }
      for (const step of steps) await step(request, reply, anonymous)
      throw error
    }
    request.auth = auth
    for (const step of steps) await step(request, reply, auth)
    if (!auth.ok && request.routeOptions.config.auth === true) throw auth.error
  }
}


/** The API key of a request the guard admitted to a route that needs one. */
export function apiKeyOf(request: FastifyRequest): ApiKeyRecord {
  const auth = request.auth
  if (auth === undefined || !auth.ok) throw new ApiError('unauthorized', 'an API key is required')
  return auth.key
}
