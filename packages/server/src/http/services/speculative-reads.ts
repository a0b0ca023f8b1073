import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Maybe } from '../../base/maybe.ts'
import { ApiError } from '../../domain/api-error.ts'
import type { Verdict } from '../../limits/rate-limiter.ts'
import { errorBody } from '../hooks/parser-errors.ts'
import { classify } from '../hooks/errors.ts'
import { commonHeaders, routeConfigOf } from '../hooks/request-context.ts'

type Resume = (error?: Error | null, payload?: unknown) => void

/**
 * With counters across the network (Redis), a read by a key in good standing runs while the
 * rate limiter's round trip is in flight instead of after it, and its response is held until
 * the verdict arrives: admitted, it goes out with the verdict's headers; refused, it is
 * replaced by the 429, as if the read had never run. Only safe methods on routes that need a
 * key, and only for a key whose latest request was admitted: requests without a valid key, and
 * keys over their limit or banned, reach the store only once admitted. Routes do not know.
 */
export class SpeculativeReads {
  readonly #pending = new WeakMap<FastifyRequest, Maybe<Verdict>>()

  /** Whether this request may run before its verdict; `refusedLately`: its key's latest request was refused. */
  mayStart(request: FastifyRequest, refusedLately: boolean): boolean {
    return !refusedLately && (request.method === 'GET' || request.method === 'HEAD') && routeConfigOf(request).auth === true
  }

  /** The request runs on; its response waits for `verdict`. */
  holdUntil(request: FastifyRequest, verdict: Maybe<Verdict>): void {
    this.#pending.set(request, verdict)
  }

  /** The hook that holds responses: registered before any other onSend hook. */
  register(app: FastifyInstance): void {
    app.addHook('onSend', (request, reply, _payload, resume: Resume) => {
      const verdict = this.#pending.get(request)
      if (verdict === undefined) {
        resume()
        return
      }
      this.#pending.delete(request)
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
