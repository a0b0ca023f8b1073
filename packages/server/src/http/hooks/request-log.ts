import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { redactSecrets } from '../../base/logger.ts'
import type { Metrics } from '../services/metrics.ts'
import { routeConfigOf } from './request-context.ts'

/** Every finished request is counted and latency-timed by route, and logged in one line. */
export function registerRequestLog(app: FastifyInstance, metrics: Metrics, log: Logger): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.record(request.method, routeConfigOf(request).url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    if (log.isLevelEnabled('info')) {
      const ms = Math.round(reply.elapsedTime * 10) / 10
      request.log.info({ method: request.method, url: redactSecrets(request.url), status: reply.statusCode, ms }, 'request')
    }
    done()
  })
}
