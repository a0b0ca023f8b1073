import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { systemClock, type Clock } from './clock.ts'
import type { Config } from './config.ts'
import { KeyCache } from './domain/key-cache.ts'
import { IdempotencyService } from './domain/idempotency.ts'
import { PetService } from './domain/pets.ts'
import { createApiGuard, type ApiGuard } from './http/api-guard.ts'
import { Authenticator } from './http/auth.ts'
import { registerDocs } from './http/docs.ts'
import { writeClientError } from './http/error-body.ts'
import { frameworkErrorHandler, registerErrorHandling } from './http/errors.ts'
import { registerHealth, type ReadinessCheck } from './http/health.ts'
import { BODY_LIMIT_BYTES, registerJsonBody } from './http/json-body.ts'
import { AllowedMethods } from './http/method-not-allowed.ts'
import { Metrics, registerMetricsRoute } from './http/metrics.ts'
import { commonHeaders, requestId } from './http/request-context.ts'
import { rateLimitStep } from './http/rate-limit.ts'
import { registerSchemaCompilers } from './http/validation.ts'
import { registerWriteCoalescing } from './http/write-coalescing.ts'
import { openRateLimitStore, type RateLimitStore } from './limits/index.ts'
import { registerOpenApiRoute } from './routes/openapi.ts'
import { registerPetRoutes } from './routes/pets.ts'
import type { Storage } from './storage/types.ts'
import { createLogger, redactSecrets } from './logger.ts'

export interface AppDeps {
  storage: Storage
  clock?: Clock
  logger?: Logger
  metrics?: Metrics
  /** How long a key lookup is trusted; a revocation shows within this (default 2 s). */
  keyCacheTtlMs?: number
  /** Where rate-limit counters live; by default chosen from the config (Redis, or the embedded store). */
  rateLimits?: RateLimitStore
  /** Extra `/readyz` checks beyond the database. */
  readiness?: Record<string, ReadinessCheck>
}

const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000

/** Builds the whole service; main.ts and every test use this one function. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock
  const metrics = deps.metrics ?? new Metrics({ clock })
  const logger = deps.logger ?? createLogger(config.logLevel)
  // Bound once the guard exists; routing failures arrive before any hook runs.
  let guard: ApiGuard = () => undefined
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    // Node checks those deadlines on this interval (30 s by default): check often enough to honour them.
    http: { headersTimeout: config.timeouts.headersMs, connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs) },
    return503OnClosing: false,
    clientErrorHandler: writeClientError,
    frameworkErrors: frameworkErrorHandler(async (request, reply) => {
      commonHeaders(request, reply)
      await guard(request, reply)
    }),
    // Long ids must reach the handler (a 404 with rate-limit headers), not stop in the router.
    routerOptions: { maxParamLength: 2048 }
  })

  registerSchemaCompilers(app)
  registerJsonBody(app)
  const allowedMethods = new AllowedMethods()
  registerErrorHandling(app, allowedMethods)
  // Declared up front so every request object has the same shape.
  app.decorateRequest('auth', undefined)
  app.decorateRequest('routeConfig', undefined)
  // One hook at each end of every request (each hook Fastify runs costs on the hot path):
  // common headers then the API guard; metrics then the log line. The one onSend hook batches the socket writes of reads.
  // Callback style: a request admitted synchronously (cached key, in-process counters) makes no promise.
  app.addHook('onRequest', (request, reply, done) => {
    commonHeaders(request, reply)
    let pending: void | Promise<void>
    try {
      pending = guard(request, reply)
    } catch (error) {
      done(error as Error)
      return
    }
    if (pending === undefined) done()
    else pending.then(() => done(), done)
  })
  app.addHook('onResponse', (request, reply, done) => {
    metrics.record(request, reply)
    if (logger.isLevelEnabled('info')) {
      request.log.info({ method: request.method, url: redactSecrets(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request')
    }
    done()
  })
  registerWriteCoalescing(app, app.log)
  registerMetricsRoute(app, metrics)

  // While stopping, a connection whose response has finished is idle for 1 ms, not for the
  // keep-alive timeout, so close() need not wait it out for requests that were in flight.
  app.addHook('preClose', (done) => {
    app.server.keepAliveTimeout = 1
    done()
  })

  const authenticator = new Authenticator(new KeyCache(deps.storage.keys, clock, { ttlMs: deps.keyCacheTtlMs }), clock)
  const rateLimits = deps.rateLimits ?? await openRateLimitStore(config, deps.storage, { clock, logger, metrics })
  // Counters are flushed when the app closes, before the caller closes the storage.
  app.addHook('onClose', async () => rateLimits.close())
  const refusedKeys = new Set<string>()
  guard = createApiGuard(authenticator, [rateLimitStep({ store: rateLimits.store, clock, banMs: config.banSeconds * 1000, metrics, refusedKeys })])

  const docsUrl = `${new URL(config.publicBaseUrl).origin}/docs`
  const idempotency = new IdempotencyService(deps.storage.idempotency, clock)
  registerPetRoutes(app, { allowedMethods, pets: new PetService(deps.storage.pets, clock, rateLimits.changes), idempotency, publicBaseUrl: config.publicBaseUrl, docsUrl, pageCacheEntries: config.pageCacheEntries, refusedKeys })
  // Replayable responses are kept 24 hours; older ones are swept out every 10 minutes.
  const purge = setInterval(() => {
    idempotency.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, 'could not purge expired idempotency keys'))
  }, IDEMPOTENCY_PURGE_INTERVAL_MS)
  purge.unref()
  app.addHook('onClose', async () => clearInterval(purge))
  registerOpenApiRoute(app, config)
  registerDocs(app)
  registerHealth(app, { database: () => deps.storage.ping(), ...rateLimits.readiness, ...deps.readiness })

  await app.ready()
  return app
}
