import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { Clock } from '../../base/clock.ts'
import type { WindowName } from '../../domain/rate-limits/policy.ts'
import type { FallbackEvents } from '../../limits/types.ts'
import type { RateLimitObserver, RefusalCode } from '../../limits/rate-limiter.ts'
import { TwoKeyMap } from '../../base/two-key-map.ts'
import { LatencyHistogram, type LatencySeries } from './latency-histogram.ts'

/** Counts taken on the hot path as plain numbers, by plan, and handed to prom-client when /metrics is scraped. */
class PendingCounts {
  readonly #pending = new Map<string, number>()

  add(id: string): void {
    this.#pending.set(id, (this.#pending.get(id) ?? 0) + 1)
  }

  flush(into: (id: string, count: number) => void): void {
    for (const [id, count] of this.#pending) into(id, count)
    this.#pending.clear()
  }
}

/** One method and route: its requests since the last scrape by status, and its latency series. */
interface RouteRecord {
  latency: LatencySeries
  statuses: Map<number, number>
}

/** The service's Prometheus metrics, in a registry of its own so several apps can live in one process (tests). */
export class Metrics implements RateLimitObserver {
  readonly registry = new Registry()
  /** By route, then method: a request looks up the strings it has and builds none. */
  readonly #routes = new TwoKeyMap<string, string, RouteRecord>()
  /** By plan. */
  readonly #allowedCounts = new PendingCounts()
  readonly #requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      for (const [route, method, { statuses }] of this.#routes.entries()) {
        for (const [status, count] of statuses) this.#requests.inc({ method, route, status }, count)
        statuses.clear()
      }
    }
  })
  readonly #duration = new LatencyHistogram(
    'http_request_duration_seconds',
    'HTTP request latency by route',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
  )
  readonly #rateLimitDecisions = new Counter({
    name: 'rate_limit_decisions_total',
    help: 'Rate-limit decisions by plan, outcome (allowed, rate_limited, banned) and refusing window',
    labelNames: ['plan', 'outcome', 'window'] as const,
    registers: [this.registry],
    collect: () =>
      this.#allowedCounts.flush((plan, count) => this.#rateLimitDecisions.inc({ plan, outcome: 'allowed', window: 'none' }, count))
  })
  readonly #bansStarted = new Counter({
    name: 'rate_limit_bans_started_total',
    help: 'Temporary bans started, by plan',
    labelNames: ['plan'] as const,
    registers: [this.registry]
  })
  readonly #limitStoreFallbacks = new Counter({
    name: 'rate_limit_store_fallbacks_total',
    help: 'Times the shared counter store (Redis) became unreachable and limits fell back to per-instance counters',
    registers: [this.registry]
  })
  readonly #limitStoreDegraded = new Gauge({
    name: 'rate_limit_store_degraded',
    help: '1 while rate limits run on per-instance counters because Redis is unreachable',
    registers: [this.registry]
  })
  /** Bans this instance started, until they end: key id to plan and ban end (Unix ms). Never exported by key. */
  readonly #bans = new Map<string, { plan: string; until: number }>()

  constructor(clock: Clock) {
    collectDefaultMetrics({ register: this.registry })
    // Gauges named like counters (promtool: "non-counter metrics should not have _total suffix");
    // the same numbers stay in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources by type.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      this.registry.removeSingleMetric(name)
    }
    const bans = this.#bans
    // By plan, never by key: the label set stays bounded whatever the number of keys, and no key id leaks.
    new Gauge({
      name: 'rate_limit_bans_active',
      help: 'Bans started by this instance that have not ended yet, by plan',
      labelNames: ['plan'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        const now = clock.now()
        const byPlan = new Map<string, number>()
        for (const [keyId, ban] of bans) {
          if (ban.until <= now) bans.delete(keyId)
          else byPlan.set(ban.plan, (byPlan.get(ban.plan) ?? 0) + 1)
        }
        for (const [plan, count] of byPlan) this.set({ plan }, count)
      }
    })
  }

  /** Counts a finished request and its latency, by route (`unmatched` when no route matched). */
  record(method: string, route: string, status: number, elapsedMs: number): void {
    const record = this.#routes.getOrAdd(route, method, this.#newRoute)
    record.statuses.set(status, (record.statuses.get(status) ?? 0) + 1)
    record.latency.observe(elapsedMs / 1000)
  }

  readonly #newRoute = (route: string, method: string): RouteRecord => ({
    latency: this.#duration.series(method, route),
    statuses: new Map<number, number>()
  })

  /** A request the rate limiter let through (the hot path's one decision, counted cheaply). */
  allowed(plan: string): void {
    this.#allowedCounts.add(plan)
  }

  refused(plan: string, outcome: RefusalCode, window: WindowName | 'none'): void {
    this.#rateLimitDecisions.inc({ plan, outcome, window })
  }

  /** The Prometheus text of every metric. */
  async render(): Promise<string> {
    return `${await this.registry.metrics()}${this.#duration.render()}`
  }

  banStarted(plan: string, keyId: string, until: number): void {
    this.#bansStarted.inc({ plan })
    this.#bans.set(keyId, { plan, until })
  }

  /** Counts the shared counter store's outages; `log` says what happened. */
  counterStoreEvents(log: FallbackEvents): FallbackEvents {
    return {
      degraded: (error) => {
        this.#limitStoreFallbacks.inc()
        this.#limitStoreDegraded.set(1)
        log.degraded(error)
      },
      recovered: () => {
        this.#limitStoreDegraded.set(0)
        log.recovered()
      }
    }
  }

  /** Exports the spans tracing dropped (`dropped()`: the total since start), as a counter that exists only while tracing is on. */
  countDroppedSpans(dropped: () => number): void {
    let counted = 0
    new Counter({
      name: 'tracing_spans_dropped_total',
      help: 'Spans dropped because the export queue was full (the OTLP collector slow or unreachable)',
      registers: [this.registry],
      collect() {
        const total = dropped()
        if (total > counted) this.inc(total - counted)
        counted = total
      }
    })
  }

  /** The key was admitted: any ban this instance recorded for it is over (it may have been lifted by `keys unban`). */
  keyAdmitted(keyId: string): void {
    if (this.#bans.size > 0) this.#bans.delete(keyId)
  }
}
