import type { FastifyInstance } from 'fastify'
import { getCallerUsage, type UsageQuery } from '@animal-store/contract'
import { queryMoment } from '../domain/iso-time.ts'
import type { UsageService } from '../domain/usage/service.ts'
import { apiKeyOf } from '../http/hooks/api/api-guard.ts'
import type { RateLimiter } from '../limits/rate-limiter.ts'

/**
 * `GET /v1/usage`: the caller's customer's requests by outcome over time, read without taking
 * quota (so not counted either), with the rate-limit headers of the windows in force.
 */
export function registerUsageRoute(app: FastifyInstance, parts: { limiter: RateLimiter; usage: UsageService }): void {
  app.route<{ Querystring: UsageQuery }>({
    method: getCallerUsage.method,
    url: `/v1${getCallerUsage.path}`,
    config: { auth: true, consumesQuota: false },
    schema: { querystring: getCallerUsage.query, response: { [getCallerUsage.success.status]: getCallerUsage.success.schema } },
    handler: async (request, reply) => {
      const key = apiKeyOf(request)
      const { from, to, granularity } = request.query
      const range = { from: queryMoment('from', from), to: queryMoment('to', to), granularity }
      const [buckets, { headers }] = await Promise.all([
        // A key the previous release made has no customer yet: it is its own.
        key.customerId === null ? parts.usage.keyUsage(key.id, range) : parts.usage.customerUsage(key.customerId, range),
        parts.limiter.status(key)
      ])
      reply.headers(headers)
      return buckets
    }
  })
}
