import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Scope } from '@animal-store/contract'
import { isPending, type Maybe } from '../../../base/maybe.ts'
import { ApiError } from '../../../domain/api-error.ts'
import type { RateLimiter, Verdict } from '../../../limits/rate-limiter.ts'
import type { ApiKeyRecord } from '../../../storage/keys/types.ts'
import type { Config } from '../../../config.ts'
import type { AuthResult, Authenticator } from '../../services/authenticator.ts'
import { ClientAddresses } from '../requests/client-address.ts'
import { routeConfigOf } from '../requests/request-context.ts'
import type { SpeculativeReads } from '../../services/speculative-reads.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The outcome of `Authorization` on a /v1 request; undefined outside /v1. */
    auth: AuthResult | undefined
  }
  interface FastifyContextConfig {
    /** The route needs a valid API key. */
    auth?: boolean
    /** False: a request with a valid key takes no quota (the route reads the key's use and sets the headers itself). */
    consumesQuota?: boolean
    /** The scope a key needs for the route; a key without it is refused 403 once it has passed the limiter. */
    scope?: Scope
  }
}

function isApiPath(url: string): boolean {
  return url.startsWith('/v1/') || url === '/v1' || url.startsWith('/v1?')
}

/** Undefined when the request was admitted synchronously (the common case: a cached key, in-process counters). */
export type ApiGuard = (request: FastifyRequest, reply: FastifyReply) => Maybe<void>

export interface ApiGuardOptions {
  config: Pick<Config, 'trustProxy' | 'ipv6Prefix'>
  authenticator: Authenticator
  limiter: RateLimiter
  /** When given, reads by keys in good standing start before their verdict arrives. */
  speculation: SpeculativeReads | undefined
}

/** The rate-limit headers go on the response, whatever its status; a refusal is thrown. */
function applyVerdict(reply: FastifyReply, verdict: Verdict): void {
  reply.headers(verdict.headers)
  if (verdict.refusal !== undefined) throw verdict.refusal
}

/** The 403 of a key whose scopes lack the route's, with the RFC 6750 §3.1 challenge. */
function insufficientScope(request: FastifyRequest, scope: Scope): ApiError {
  const operation = scope === 'pets:write' ? 'create animals' : 'read animals'
  return new ApiError(
    'insufficient_scope',
    `this API key may not ${operation}: ${request.method} ${request.url.split('?')[0]} needs the ${scope} scope`,
    {
      'www-authenticate': `Bearer realm="animal-store", error="insufficient_scope", scope="${scope}"`
    }
  )
}

/** True when the route needs a scope the request's key does not have. */
function lacksScope(request: FastifyRequest, auth: AuthResult): boolean {
  const scope = routeConfigOf(request).scope
  return auth.ok && scope !== undefined && !auth.key.scopes.includes(scope)
}

/**
 * The verdict's headers go on the response; then a refusal, a route that needs a key without one,
 * or a key without the route's scope (it has taken its quota, as any answered request) is thrown.
 */
function admitted(request: FastifyRequest, reply: FastifyReply, auth: AuthResult, verdict: Verdict): void {
  applyVerdict(reply, verdict)
  if (!auth.ok && routeConfigOf(request).auth === true) throw auth.error
  if (lacksScope(request, auth)) throw insufficientScope(request, routeConfigOf(request).scope!)
}

/**
 * Every /v1 request, in this order and before its body is read: resolve the key; consume one
 * request from the rate limit of the key or, without a valid key, of the client address (the
 * headers go on every /v1 response); refuse a route that needs a key without one.
 */
export function createApiGuard({ config, authenticator, limiter, speculation }: ApiGuardOptions): ApiGuard {
  const addresses = new ClientAddresses(config.trustProxy, config.ipv6Prefix)
  const addressOf = (request: FastifyRequest) => addresses.of(request.socket.remoteAddress, request.headers['x-forwarded-for'])
  const admit = (request: FastifyRequest, reply: FastifyReply, auth: AuthResult): Maybe<void> => {
    request.auth = auth
    if (auth.ok && routeConfigOf(request).consumesQuota === false) return undefined
    // Asked before the consume: a verdict that arrives at once must not count against its own request.
    const early =
      speculation !== undefined &&
      auth.ok &&
      !lacksScope(request, auth) &&
      speculation.mayStart(request.method, routeConfigOf(request).auth === true, limiter.recentlyRefused(auth.key.counterId))
    const verdict = limiter.check(auth.ok ? auth.key : addressOf(request))
    if (early) {
      speculation.holdUntil(request, verdict)
      return undefined
    }
    if (isPending(verdict)) return verdict.then((settled) => admitted(request, reply, auth, settled))
    admitted(request, reply, auth, verdict)
    return undefined
  }
  // The key could not be looked up (its store is unreachable): the 503 says so, and spends
  // neither the key's quota nor the address's, so a paying client is never refused as anonymous.
  const unchecked = async (request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<void> => {
    reply.headers(await limiter.addressHeaders(addressOf(request)))
    throw error
  }

  return (request, reply) => {
    if (!isApiPath(request.url)) return undefined
    const auth = authenticator.authenticate(request.headers.authorization)
    if (!isPending(auth)) return admit(request, reply, auth)
    return auth.then(
      (settled) => admit(request, reply, settled),
      (error: unknown) => unchecked(request, reply, error)
    )
  }
}

/** The API key of a request the guard admitted to a route that needs one. */
export function apiKeyOf(request: FastifyRequest): ApiKeyRecord {
  const auth = request.auth
  if (auth === undefined || !auth.ok) throw new ApiError('unauthorized', 'an API key is required')
  return auth.key
}
