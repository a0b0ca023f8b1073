import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** The service's Prometheus metrics, in a registry of its own so several apps can live in one process (tests). */
export class Metrics {
  readonly registry = new Registry()
  readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['method', 'route', 'status'] as const, registers: [this.registry] })
  readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry]
  })

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry })
  }
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.requests.inc({ method: request.method, route, status: reply.statusCode })
    metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000)
    done()
  })
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })
}
