import type { FastifyRequest } from 'fastify'
import type { OperatorRole } from '@animal-store/contract'
import type { Clock } from '../../../base/clock.ts'
import type { TrustedProxies } from '../../../base/ip-address.ts'
import type { Actor, RequestOrigin } from '../../../domain/actor.ts'
import { ApiError } from '../../../domain/api-error.ts'
import type { OperatorRecord } from '../../../storage/operators/types.ts'
import type { OperatorAuthenticator } from '../../services/operator-authenticator.ts'
import type { SignInLimit } from '../../services/sign-in-limit.ts'
import { ClientAddresses } from '../requests/client-address.ts'
import { routeConfigOf } from '../requests/request-context.ts'

/** The operator a request signed in as, and what the audit log records of it. */
export interface SignedIn {
  operator: OperatorRecord
  actor: Actor
  origin: RequestOrigin
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role that may call the operator API route; routes without one need no token. */
    operatorRole?: OperatorRole
  }
  interface FastifyRequest {
    /** Set by the operator guard on the routes that need a token. */
    signedIn: SignedIn | undefined
  }
}

export interface OperatorGuardOptions {
  trustProxy: TrustedProxies | undefined
  ipv6Prefix: number
  clock: Clock
  authenticator: OperatorAuthenticator
  signIns: SignInLimit
}

/**
 * Every operator API route, before its body is read: refuse an address past its failed
 * sign-ins (429, whatever the token), sign in (401, a tried token counted as a failure), then
 * check the role (403: a viewer only reads). The address is the public side's (TRUST_PROXY,
 * IPv6 by prefix); the audit log keeps the whole address.
 */
export function createOperatorGuard(options: OperatorGuardOptions): (request: FastifyRequest) => Promise<void> {
  const { clock, authenticator, signIns } = options
  const limited = new ClientAddresses(options.trustProxy, options.ipv6Prefix)
  const whole = new ClientAddresses(options.trustProxy, 128)
  return async (request) => {
    const role = routeConfigOf(request).operatorRole
    if (role === undefined) return
    const address = limited.of(request.socket.remoteAddress, request.headers['x-forwarded-for'])
    const wait = signIns.blockedFor(address, clock.now())
    if (wait > 0)
      throw new ApiError('rate_limited', `too many failed sign-ins from this address; retry after ${wait} seconds`, {
        'retry-after': String(wait)
      })
    const auth = await authenticator.authenticate(request.headers.authorization)
    if (!auth.ok) {
      if (auth.tokenTried) signIns.failed(address, clock.now())
      throw auth.error
    }
    const { operator } = auth
    if (role === 'admin' && operator.role !== 'admin')
      throw new ApiError(
        'forbidden',
        `a viewer may not ${request.method} ${routeConfigOf(request).url ?? 'this'}; this needs the admin role`
      )
    const userAgent = request.headers['user-agent']
    request.signedIn = {
      operator,
      actor: { type: 'operator', id: operator.id, name: operator.name },
      origin: {
        requestId: request.id,
        remoteAddress: whole.of(request.socket.remoteAddress, request.headers['x-forwarded-for']).replace(/\/128$/, ''),
        userAgent: userAgent === undefined || userAgent === '' ? null : userAgent
      }
    }
  }
}

/** The operator of a request the guard signed in. */
export function signedIn(request: FastifyRequest): SignedIn {
  if (request.signedIn === undefined) throw new ApiError('unauthorized', 'an operator token is required')
  return request.signedIn
}
