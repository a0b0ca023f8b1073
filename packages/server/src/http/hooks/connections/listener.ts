import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from '../../../config.ts'
import { frameworkErrorHandler, registerErrorHandling } from '../errors/errors.ts'
import { BODY_LIMIT_BYTES, registerJsonBody } from '../requests/json-body.ts'
import { AllowedMethods } from '../errors/method-not-allowed.ts'
import { registerParserAnswers, writeClientError } from '../errors/parser-errors.ts'
import { requestId } from '../requests/request-context.ts'
import { registerSchemaCompilers } from '../errors/validation.ts'

/**
 * The Fastify options of the public and the operator listener alike: the same deadlines, body
 * limit, request ids and answers to malformed requests. `beforeFrameworkError` runs before a
 * routing or parsing failure is answered (the common headers, and on the public listener its guard).
 */
export function listenerOptions(
  config: Config,
  loggerInstance: FastifyBaseLogger,
  beforeFrameworkError: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
) {
  return {
    loggerInstance,
    // One line per request, written by the listener's own log hook, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    // Node checks those deadlines on this interval (30 s by default): check often enough to honour them.
    // Node answers a missing Host with a bare 400; the onRequest hook answers it with an Error body.
    http: {
      headersTimeout: config.timeouts.headersMs,
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs),
      requireHostHeader: false
    },
    return503OnClosing: false,
    clientErrorHandler: writeClientError,
    frameworkErrors: frameworkErrorHandler(beforeFrameworkError),
    // Long ids must reach the handler (a 404 with the listener's headers), not stop in the router.
    routerOptions: { maxParamLength: 2048 }
  }
}

/**
 * What both listeners register first, so they answer alike: Node's parser errors, validation,
 * the JSON body, 405s with Allow, and the Error body of every failure.
 */
export function registerListenerHandling(app: FastifyInstance): void {
  registerParserAnswers(app.server)
  registerSchemaCompilers(app)
  registerJsonBody(app)
  const allowedMethods = new AllowedMethods()
  allowedMethods.learnRoutes(app)
  registerErrorHandling(app, allowedMethods)
}
