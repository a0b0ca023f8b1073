import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { redactSecrets } from '../../../base/logger.ts'
import type { Metrics } from '../../services/metrics.ts'
import { routeConfigOf } from './request-context.ts'

/**
 * Every finished request ends its server span (tracing on), is counted and latency-timed by
 * route, and is logged in one line, with the trace id when there is one.
 */
export function registerRequestLog(app: FastifyInstance, metrics: Metrics, log: Logger): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeConfigOf(request).url
    request.span?.end(route, reply.statusCode)
    metrics.record(request.method, route ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    if (log.isLevelEnabled('info')) {
      const ms = Math.round(reply.elapsedTime * 10) / 10
      // On the service's logger with the request id in the line, as the request's own logger
      // would write it: making that logger (a pino child) for the one line cost more than the line.
      const line = {
        reqId: request.id,
        method: request.method,
        url: redactSecrets(request.url),
        status: reply.statusCode,
        ms,
        trace_id: request.span?.traceId
      }
      log.info(line, 'request')
    }
    done()
  })
}
