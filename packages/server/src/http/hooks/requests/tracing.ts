import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { redactSecrets } from '../../../base/logger.ts'
import type { RequestSpan, ServerRequestInfo, Tracing } from '../../../base/tracing.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span when tracing is on and the sampler took it (or a caller's trace id). */
    span: RequestSpan | undefined
  }
}

type Admit = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

/** What the span says of a sampled request: read only for those. */
function describe(request: FastifyRequest): ServerRequestInfo {
  const queryAt = request.url.indexOf('?')
  return {
    method: request.method,
    path: redactSecrets(queryAt === -1 ? request.url : request.url.slice(0, queryAt)),
    scheme: request.protocol
  }
}

/**
 * The request's onRequest work with the server span started first, so the guard's key lookup
 * and counter call and the handler's storage calls run inside it. A request the sampler leaves
 * out runs `admit` as it would with tracing off. The span ends in the request log's onResponse.
 */
export function traced(tracing: Tracing, admit: Admit): onRequestHookHandler {
  return (request, reply, done) => {
    const span = tracing.startRequest(request.headers, request, describe)
    if (span === undefined) {
      admit(request, reply, done)
      return
    }
    request.span = span
    span.run(() => admit(request, reply, done))
  }
}
