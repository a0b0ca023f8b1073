import type { FastifyReply } from 'fastify'
import { andThen, type Maybe } from '../../base/maybe.ts'

const SENT = Symbol('sent')

/**
 * The response to `value` once it is ready: `payloadOf` sets any headers and returns the body.
 * A ready value is sent at once and the handler returns nothing, so Fastify waits on no promise
 * (the embedded default's hot path); otherwise the handler returns the promise of the payload,
 * which Fastify sends. Neither path returns the reply itself: Fastify would then wait for the
 * response stream to finish, a listener on every request.
 */
export function respondWhenReady<T>(reply: FastifyReply, value: Maybe<T>, payloadOf: (ready: T) => unknown): Promise<unknown> | undefined {
  let synchronous = true
  const payload = andThen(value, (ready) => {
    if (!synchronous) return payloadOf(ready)
    reply.send(payloadOf(ready))
    return SENT
  })
  synchronous = false
  return payload === SENT ? undefined : (payload as Promise<unknown>)
}
