import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { systemClock, type Clock } from '../clock.ts'

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
  readonly rateLimitDecisions = new Counter({
    name: 'rate_limit_decisions_total',
    help: 'Rate-limit decisions by plan, outcome (allowed, rate_limited, banned) and refusing window',
    labelNames: ['plan', 'outcome', 'window'] as const,
    registers: [this.registry]
  })
  readonly bansStarted = new Counter({ name: 'rate_limit_bans_started_total', help: 'Temporary bans started, by plan', labelNames: ['plan'] as const, registers: [this.registry] })
  readonly limitStoreFallbacks = new Counter({ name: 'rate_limit_store_fallbacks_total', help: 'Times the shared counter store (Redis) became unreachable and limits fell back to per-instance counters', registers: [this.registry] })
  readonly limitStoreDegraded = new Gauge({ name: 'rate_limit_store_degraded', help: '1 while rate limits run on per-instance counters because Redis is unreachable', registers: [this.registry] })
  /** Bans this instance started, until they end: key id to ban end (Unix ms). */
  readonly #bans = new Map<string, number>()

  constructor(options: { processMetrics?: boolean, clock?: Clock } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry })
    const bans = this.#bans
    const clock = options.clock ?? systemClock
    new Gauge({
      name: 'rate_limit_ban_ends_seconds',
      help: 'Unix time at which each current ban started by this instance ends, by key id',
      labelNames: ['key_id'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        const now = clock.now()
        for (const [keyId, until] of bans) {
          if (until <= now) bans.delete(keyId)
          else this.set({ key_id: keyId }, until / 1000)
        }
      }
    })
  }

  /** Counts a finished request and its latency, by route. */
  record(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? 'unmatched'
    this.requests.inc({ method: request.method, route, status: reply.statusCode })
    this.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000)
  }

  banStarted(plan: string, keyId: string, until: number): void {
    this.bansStarted.inc({ plan })
    this.#bans.set(keyId, until)
  }

  /** The key was admitted: any ban this instance recorded for it is over (it may have been lifted by `keys unban`). */
  keyAdmitted(keyId: string): void {
    if (this.#bans.size > 0) this.#bans.delete(keyId)
  }
}

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })
}
