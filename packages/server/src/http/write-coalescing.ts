import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

type Resume = (error?: Error | null) => void

/**
 * Responses finished during one turn of the event loop are written together at its end
 * (setImmediate runs right after the poll phase that produced them), not one by one as
 * each is ready. A write that finds the client's side asleep pays to wake it, and on a VM
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
        log.error({ err: error }, 'could not write a response; closing its connection')
        raws[i]!.destroy()
      }
    }
  }
  // Callback style and no payload change: resuming with nothing keeps the serialized body.
  app.addHook('onSend', (_request, reply, _payload, resume: Resume) => {
    if (resumes.length === 0) setImmediate(flush)
    resumes.push(resume)
    responses.push(reply.raw)
  })
}
