import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { RequestSpan, Tracing } from '../../base/tracing.ts'
import { routeConfigOf } from './request-context.ts'

/**
 * One server span per request: started first thing, so the guard's key lookup and counter
 * call and the handler's storage calls run inside it; ended with the status once the response
 * is sent. The trace id goes on the request's log lines (when the request line is logged, at `info`). Registered only when tracing is on.
 */
export function registerTracing(app: FastifyInstance, tracing: Tracing, log: Logger): void {
  // A child logger costs more than the span (pino serializes its bindings): only when the request line is written.
  const logsRequests = log.isLevelEnabled('info')
  const spans = new WeakMap<FastifyRequest, RequestSpan>()
  app.addHook('onRequest', (request, _reply, done) => {
    const queryAt = request.url.indexOf('?')
    tracing.startRequest(
      {
        method: request.method,
        path: queryAt === -1 ? request.url : request.url.slice(0, queryAt),
        scheme: request.protocol,
        headers: request.headers,
        serverAddress: request.hostname,
        serverPort: request.port ?? 0,
        httpVersion: request.raw.httpVersion
      },
      (span) => {
        spans.set(request, span)
        if (logsRequests) request.log = request.log.child({ trace_id: span.traceId })
        done()
      }
    )
  })
  app.addHook('onResponse', (request, reply, done) => {
    spans.get(request)?.end(routeConfigOf(request).url, reply.statusCode)
    done()
  })
}
