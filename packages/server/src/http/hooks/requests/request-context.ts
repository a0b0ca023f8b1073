import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { KEY_SHAPED } from '../../../base/logger.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Headers every response of the route carries, whatever its status. */
    responseHeaders?: Record<string, string>
  }
  interface FastifyRequest {
    /** Set by routeConfigOf; undefined until then. */
    routeConfig: RouteConfig | undefined
  }
}

/** A route's config, its `url` (undefined when no route matched) and `method` included. */
export type RouteConfig = FastifyRequest['routeOptions']['config']

/** The matched route's config, read once per request: Fastify's `routeOptions` getter builds a new object on every read. */
export function routeConfigOf(request: FastifyRequest): RouteConfig {
  request.routeConfig ??= request.routeOptions.config
  return request.routeConfig
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** Echoes a sane client X-Request-Id, else makes one; one shaped like a key or operator token is never echoed (it would be logged). */
export function requestId(request: IncomingMessage): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) && !KEY_SHAPED.test(sent) ? sent : randomUUID()
}

/** An HTTP/1.1 request without `Host` (RFC 9112 §3.2: answered 400); HTTP/1.0 needs none. */
export function missingHost(request: IncomingMessage): boolean {
  return request.headers.host === undefined && request.httpVersion === '1.1'
}

/** Headers every response carries. */
export function commonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('cache-control', 'no-store')
  const extra = routeConfigOf(request).responseHeaders
  if (extra !== undefined) reply.headers(extra)
}
