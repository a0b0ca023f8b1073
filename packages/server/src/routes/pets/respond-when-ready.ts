import type { FastifyReply, FastifyRequest } from 'fastify'
import { isPending, type Maybe } from '../../base/maybe.ts'

/** Sets any headers of the response to `ready` and returns its body. */
export type Payload<T> = (request: FastifyRequest, reply: FastifyReply, ready: T) => unknown

/**
 * The response to `value` once it is ready. A ready value is sent at once and the handler
 * returns nothing, so Fastify waits on no promise (the embedded default's hot path); otherwise
 * the handler returns the promise of the payload, which Fastify sends. Neither path returns the
 * reply itself: Fastify would then wait for the response stream to finish, a listener on every request.
 */
export function respondWhenReady<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  value: Maybe<T>,
  payloadOf: Payload<T>
): Promise<unknown> | undefined {
  if (isPending(value)) return value.then((ready) => payloadOf(request, reply, ready))
  reply.send(payloadOf(request, reply, value))
  return undefined
}
