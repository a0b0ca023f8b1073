import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Headers every response of the route carries, whatever its status. */
    responseHeaders?: Record<string, string>
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** Echoes a sane client X-Request-Id, else makes one. */
export function requestId(request: IncomingMessage): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID()
}

/** Headers every response carries. */
export function commonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('cache-control', 'no-store')
  const extra = request.routeOptions.config.responseHeaders
  if (extra !== undefined) reply.headers(extra)
}
