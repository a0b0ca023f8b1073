import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { redactSecrets } from '../../../base/logger.ts'

/**
 * One log line per operator API request, naming the operator who made it. Kept out of the
 * public listener's metrics: those describe the API's traffic, and operators are not it.
 */
export function registerOperatorLog(app: FastifyInstance, log: Logger): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (log.isLevelEnabled('info')) {
      const ms = Math.round(reply.elapsedTime * 10) / 10
      const operator = request.signedIn?.operator.id
      request.log.info(
        { listener: 'admin', method: request.method, url: redactSecrets(request.url), status: reply.statusCode, ms, operator },
        'request'
      )
    }
    done()
  })
}
