import type { FastifyInstance } from 'fastify'
import { getRateLimit } from '@animal-store/contract'
import { apiKeyOf } from '../http/hooks/api/api-guard.ts'
import type { RateLimiter } from '../limits/rate-limiter.ts'

/** `GET /v1/rate_limit`: the caller's own use, read without taking quota; a banned key gets its ban with 200. */
export function registerRateLimitRoute(app: FastifyInstance, limiter: RateLimiter): void {
  app.route({
    method: getRateLimit.method,
    url: `/v1${getRateLimit.path}`,
    config: { auth: true, consumesQuota: false },
    schema: { querystring: getRateLimit.query, response: { [getRateLimit.success.status]: getRateLimit.success.schema } },
    handler: async (request, reply) => {
      const { status, headers } = await limiter.status(apiKeyOf(request))
      reply.headers(headers)
      return status
    }
  })
}
