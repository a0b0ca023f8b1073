import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

type Resume = (error?: Error | null) => void

declare module 'fastify' {
  interface FastifyReply {
    /** The response waits for the end of the turn; `reply.sent` stays false until it is written. */
    writeQueued: boolean
  }
}

/** Logged when a response could not be written (its connection is closed). */
export const WRITE_FAILED = 'could not write a response; closing its connection'
/** Logged when a reply is sent again before its first response was written (the second is dropped). */
export const SENT_TWICE = 'a reply was sent twice (an async handler that calls reply.send must return the reply); the second is dropped'

/**
 * Responses to reads finished during one turn of the event loop are written together at its end
 * (setImmediate runs right after the poll phase that produced them), not one by one as
 * each is ready. A socket write that finds the client's side asleep pays to wake it, and on a VM
 * waking an idle vCPU is expensive: written back to back, one turn's responses wake it
 * once. A request alone in its turn waits only for that turn to finish (microseconds).
 */
export function registerWriteCoalescing(app: FastifyInstance, log: FastifyBaseLogger): void {
  // Two parallel lists rather than a pair object per response: nothing allocated per request.
  let resumes: Resume[] = []
  let responses: ServerResponse[] = []
  const flush = (): void => {
    const batch = resumes
    const raws = responses
    resumes = []
    responses = []
    for (let i = 0; i < batch.length; i++) {
      // One response failing to write must not strand the rest of the turn's, nor crash the
      // process from inside setImmediate; its client gets a closed connection, not a hang.
      try {
        batch[i]!()
      } catch (error) {
        log.error({ err: error }, WRITE_FAILED)
        raws[i]!.destroy()
      }
    }
  }
  app.decorateReply('writeQueued', false)
  // Callback style and no payload change: resuming with nothing keeps the serialized body.
  app.addHook('onSend', (request, reply, _payload, resume: Resume) => {
    // A create is answered as soon as it is durable. The embedded store commits the creates of
    // a turn together at its end and answers them in one sweep already; held for one more
    // turn, those answers (and the clients' next requests) would wait a turn, and commits
    // would split into smaller batches: creates ran ~20% slower that way.
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      resume()
      return
    }
    // Fastify takes a response for sent once it is written, so an async handler that sends
    // and then resolves with nothing (instead of returning the reply) makes it send again.
    // The first response stands, as Fastify's own check would have it.
    if (reply.writeQueued) {
      log.warn({ method: request.method, route: request.routeOptions.url }, SENT_TWICE)
      return
    }
    reply.writeQueued = true
    if (resumes.length === 0) setImmediate(flush)
    resumes.push(resume)
    responses.push(reply.raw)
  })
}
