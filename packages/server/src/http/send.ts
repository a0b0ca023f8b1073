import type { FastifyReply } from 'fastify'
import { andThen, type Maybe } from '../base/maybe.ts'

/**
 * Sends `value` as soon as it is ready. A ready value is sent at once and the handler returns
 * nothing (Fastify then waits on no promise: the embedded default's hot path); a promise
 * yields the reply, which Fastify waits on until the response is written.
 */
export function sendWhenReady<T>(reply: FastifyReply, value: Maybe<T>, send: (ready: T) => void): Promise<FastifyReply> | undefined {
  const sent = andThen(value, (ready) => {
    send(ready)
    return reply
  })
  return sent === reply ? undefined : (sent as Promise<FastifyReply>)
}
