import type { FastifyInstance } from 'fastify'
import { ApiError } from '../domain/api-error.ts'

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** A known path asked with another method answers 405 with Allow, not 404. */
export function registerMethodNotAllowed(app: FastifyInstance, url: string, methods: string[], responseHeaders?: Record<string, string>): void {
  const allowed = new Set(methods)
  if (allowed.has('GET')) allowed.add('HEAD')
  const allow = ALL_METHODS.filter((method) => allowed.has(method)).join(', ')
  const others = ALL_METHODS.filter((method) => !allowed.has(method))
  app.route({
    method: others,
    url,
    config: responseHeaders === undefined ? {} : { responseHeaders },
    handler: async (request) => {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed here; allowed: ${allow}`, { allow })
    }
  })
}
