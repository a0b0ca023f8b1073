import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { ADMIN_BASE_PATH } from '@animal-store/contract'
import type { Services } from './services.ts'
import { ApiError } from './domain/api-error.ts'
import { closeAfterAnswer, hasUnreadBody } from './http/hooks/connections/lingering-close.ts'
import { listenerOptions, registerListenerHandling } from './http/hooks/connections/listener.ts'
import { createOperatorGuard } from './http/hooks/operators/operator-guard.ts'
import { registerOperatorLog } from './http/hooks/operators/operator-log.ts'
import { commonHeaders, missingHost } from './http/hooks/requests/request-context.ts'
import { OperatorAuthenticator } from './http/services/operator-authenticator.ts'
import { SignInLimit } from './http/services/sign-in-limit.ts'
import { registerAuditRoutes } from './routes/admin/audit.ts'
import { readConsole, registerConsole } from './routes/admin/console.ts'
import { registerKeyActionRoutes } from './routes/admin/key-actions.ts'
import { registerKeyRoutes } from './routes/admin/keys.ts'
import { registerAdminOpenApiRoute } from './routes/admin/openapi.ts'
import { registerPlanRoutes } from './routes/admin/plans.ts'
import { registerCustomerRoutes } from './routes/admin/customers.ts'
import { registerUsageRoutes } from './routes/admin/usage.ts'

export interface AdminAppOptions {
  /** The console's built files (`dist/`); by default the `@animal-store/console` package's, when installed and built. */
  consoleDist?: string
}

/**
 * Builds the operator listener (design.md §6) from the same services as the public app, so a
 * key changed here is dropped from this process's key cache at once. Its own hooks: operator
 * token, role, failed sign-ins per address; the public app's Error body, error handler, JSON body
 * and validation; none of the public hot path's speed-ups nor its rate limits.
 */
export async function buildAdminApp(services: Services, options: AdminAppOptions = {}): Promise<FastifyInstance> {
  const { config, logger } = services
  const loggerInstance: FastifyBaseLogger = logger
  const app: FastifyInstance = Fastify(listenerOptions(config, loggerInstance, async (request, reply) => commonHeaders(request, reply)))
  registerListenerHandling(app)
  app.decorateRequest('routeConfig', undefined)
  app.decorateRequest('signedIn', undefined)

  const guard = createOperatorGuard({
    trustProxy: config.trustProxy,
    ipv6Prefix: config.ipv6Prefix,
    clock: services.clock,
    authenticator: new OperatorAuthenticator(services.operators),
    signIns: new SignInLimit()
  })
  // Every answer, the console's page included, has X-Request-Id, nosniff and no-store (assets set their own caching).
  app.addHook('onRequest', async (request, reply) => {
    commonHeaders(request, reply)
    if (missingHost(request.raw)) throw new ApiError('bad_request', 'the Host header is required in HTTP/1.1')
    await guard(request)
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasUnreadBody(request.raw)) closeAfterAnswer(request.raw, reply.raw)
    done(null, payload)
  })
  registerOperatorLog(app, logger)
  app.addHook('preClose', (done) => {
    app.server.keepAliveTimeout = 1
    done()
  })

  // This listener's own address, known once it listens: the document's server and the `Link`s name it.
  const baseUrl = () => {
    const host = config.admin?.host ?? '127.0.0.1'
    const { port } = app.server.address() as AddressInfo
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}${ADMIN_BASE_PATH}`
  }
  const { keys, directory, audit, usage } = services
  registerKeyRoutes(app, { keys, directory, baseUrl })
  registerKeyActionRoutes(app, { keys, directory })
  registerCustomerRoutes(app, { customers: services.customers, directory: services.customerDirectory, baseUrl })
  registerPlanRoutes(app, { plans: services.plans })
  registerUsageRoutes(app, {
    usage,
    directory,
    customers: services.customerDirectory,
    adoptKeys: () => services.customers.adoptKeys(),
    source: config.publicBaseUrl
  })
  registerAuditRoutes(app, { audit, baseUrl })
  registerAdminOpenApiRoute(app, baseUrl)
  registerConsole(app, readConsole(options.consoleDist))

  await app.ready()
  return app
}
