import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../../domain/api-error.ts'
import type { SpeculativeReads } from '../../services/speculative-reads.ts'
import { errorBody } from '../errors/error-body.ts'
import { classify } from '../errors/errors.ts'
import { commonHeaders } from '../requests/request-context.ts'

type Resume = (error?: Error | null, payload?: unknown) => void

/**
 * The responses of reads that started before their rate-limit verdict wait here for it: sent
 * with the verdict's headers once admitted, replaced by the refusal otherwise. Registered
 * before any other onSend hook.
 */
export function registerHeldResponses(app: FastifyInstance, speculation: SpeculativeReads): void {
  app.addHook('onSend', (request, reply, _payload, resume: Resume) => {
    const verdict = speculation.release(request)
    if (verdict === undefined) {
      resume()
      return
    }
    Promise.resolve(verdict).then(
      (settled) => {
        if (settled.refusal === undefined) {
          reply.headers(settled.headers)
          resume()
        } else {
          resume(null, refuse(request, reply, settled.refusal, settled.headers))
        }
      },
      (error: unknown) => {
        const known =
          classify(error) ??
          new ApiError('internal_error', `an unexpected error occurred; quote request id ${request.id} when reporting it`)
        if (known.code === 'internal_error') request.log.error({ err: error }, 'rate limit verdict failed')
        resume(null, refuse(request, reply, known, {}))
      }
    )
  })
}

/** Replaces the held response by the refusal, with the headers a refusal before the read would have had. */
function refuse(request: FastifyRequest, reply: FastifyReply, error: ApiError, headers: Record<string, string>): string {
  for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name)
  commonHeaders(request, reply)
  reply.headers(headers)
  reply.headers(error.headers)
  reply.code(error.status).type('application/json; charset=utf-8')
  return JSON.stringify(errorBody(error.code, error.message))
}
