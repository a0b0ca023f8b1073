import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Services } from './services.ts'
import { deferredChildLogger } from './base/deferred-logger.ts'
import { ApiError } from './domain/api-error.ts'
import { createApiGuard, type ApiGuard } from './http/hooks/api/api-guard.ts'
import { registerHeldResponses } from './http/hooks/api/held-responses.ts'
import { closeAfterAnswer, hasUnreadBody } from './http/hooks/connections/lingering-close.ts'
import { listenerOptions, registerListenerHandling } from './http/hooks/connections/listener.ts'
import { commonHeaders, missingHost } from './http/hooks/requests/request-context.ts'
import { registerRequestLog } from './http/hooks/requests/request-log.ts'
import { traced } from './http/hooks/requests/tracing.ts'
import { registerWriteCoalescing } from './http/hooks/connections/write-coalescing.ts'
import { registerDocs } from './routes/docs.ts'
import { registerHealth } from './routes/health.ts'
import { registerMetricsRoute } from './routes/metrics.ts'
import { registerOpenApiRoute } from './routes/openapi.ts'
import { registerPetRoutes } from './routes/pets.ts'
import { registerRateLimitRoute } from './routes/rate-limit.ts'
import { registerUsageRoute } from './routes/usage.ts'

/**
 * Builds the HTTP service from what the composition root made: plugins, then routes. `serve`
 * and every test use this one function. Closing the app stops serving; the services are the
 * caller's to close afterwards.
 */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, logger, metrics, speculation } = services
  // Fastify's instance type follows its logger's: keep it the base one every plugin expects.
  const loggerInstance: FastifyBaseLogger = logger
  // Bound once the guard exists; routing failures arrive before any hook runs.
  let guard: ApiGuard = () => undefined
  const app: FastifyInstance = Fastify({
    ...listenerOptions(config, loggerInstance, async (request, reply) => {
      commonHeaders(request, reply)
      await guard(request, reply)
    }),
    // Most requests write no line: their logger is made when one is written.
    childLoggerFactory: deferredChildLogger
  })

  registerListenerHandling(app)
  // Declared up front so every request object has the same shape.
  app.decorateRequest('auth', undefined)
  app.decorateRequest('routeConfig', undefined)
  app.decorateRequest('span', undefined)
  guard = createApiGuard(services)
  // One hook at each end of every request (each hook Fastify runs costs on the hot path):
  // the server span (tracing on), common headers, then the API guard; the span's end, metrics
  // and the log line. Callback style: a request admitted synchronously (cached key, in-process
  // counters) makes no promise.
  const admit = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    commonHeaders(request, reply)
    if (missingHost(request.raw)) {
      done(new ApiError('bad_request', 'the Host header is required in HTTP/1.1'))
      return
    }
    let pending: ReturnType<ApiGuard>
    try {
      pending = guard(request, reply)
    } catch (error) {
      done(error as Error)
      return
    }
    if (pending === undefined) done()
    else pending.then(() => done(), done)
  }
  app.addHook('onRequest', services.tracing === undefined ? admit : traced(services.tracing, admit))
  // An answer sent before the body arrived (a refusal, or a route that reads none) closes the
  // connection after a bounded drain instead of reading the whole body.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasUnreadBody(request.raw)) closeAfterAnswer(request.raw, reply.raw)
    done(null, payload)
  })
  registerRequestLog(app, metrics, logger)
  // Speculative reads hold their responses before any other onSend hook sees them.
  if (speculation !== undefined) registerHeldResponses(app, speculation)
  registerWriteCoalescing(app, app.log)

  // While stopping, a connection whose response has finished is idle for 1 ms, not for the
  // keep-alive timeout, so close() need not wait it out for requests that were in flight.
  app.addHook('preClose', (done) => {
    app.server.keepAliveTimeout = 1
    done()
  })

  const docsUrl = `${new URL(config.publicBaseUrl).origin}/docs`
  registerPetRoutes(app, { ...services, publicBaseUrl: config.publicBaseUrl, docsUrl })
  registerRateLimitRoute(app, services.limiter)
  registerUsageRoute(app, services)
  registerOpenApiRoute(app, config)
  registerDocs(app)
  registerHealth(app, services.readiness)
  registerMetricsRoute(app, metrics)

  await app.ready()
  return app
}
