import type { FastifyInstance } from 'fastify'
import type { Metrics } from '../http/services/metrics.ts'

/** `GET /metrics`: Prometheus text, public like the other operational endpoints. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.render()
  })
}
