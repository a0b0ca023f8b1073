import type { FastifyInstance } from 'fastify'
import { getKeyUsage, getUsage, listTopKeys, type TopKeysQuery, type UsageQuery } from '@animal-store/contract'
import { queryMoment } from '../../domain/iso-time.ts'
import type { CustomerDirectory } from '../../domain/customers/directory.ts'
import type { KeyDirectory } from '../../domain/keys/directory.ts'
import type { UsageService } from '../../domain/usage/service.ts'
import { adminRoute } from './route.ts'

/** A query's range with its moments parsed. */
const range = (query: UsageQuery) => ({
  from: queryMoment('from', query.from),
  to: queryMoment('to', query.to),
  granularity: query.granularity
})

/** getKeyUsage, getUsage and listTopKeys: the usage history by outcome. */
export function registerUsageRoutes(
  app: FastifyInstance,
  { usage, directory, customers }: { usage: UsageService; directory: KeyDirectory; customers: CustomerDirectory }
): void {
  adminRoute<{ Params: { id: string }; Querystring: UsageQuery }>(app, getKeyUsage, async (request) =>
    directory.usage(request.params.id, range(request.query))
  )

  adminRoute<{ Querystring: UsageQuery }>(app, getUsage, async (request) => usage.allUsage(range(request.query)))

  adminRoute<{ Querystring: TopKeysQuery }>(app, listTopKeys, async (request) => {
    const { from, to, by, limit, group } = request.query
    const input = { from: queryMoment('from', from), to: queryMoment('to', to), by, limit }
    return group === 'customer' ? customers.top(input) : directory.top(input)
  })
}
