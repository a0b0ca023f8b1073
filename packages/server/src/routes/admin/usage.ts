import type { FastifyInstance } from 'fastify'
import { Readable } from 'node:stream'
import {
  exportUsage,
  getKeyUsage,
  getUsage,
  listTopKeys,
  type TopKeysQuery,
  type UsageExportQuery,
  type UsageQuery
} from '@animal-store/contract'
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

interface UsageRoutesOptions {
  usage: UsageService
  directory: KeyDirectory
  customers: CustomerDirectory
  /** Gives a customer to each key the previous release made, so the export counts every key. */
  adoptKeys: () => Promise<number>
  /** The CloudEvents `source` of the export: PUBLIC_BASE_URL. */
  source: string
}

/** getKeyUsage, getUsage, listTopKeys and exportUsage: the usage history by outcome. */
export function registerUsageRoutes(app: FastifyInstance, { usage, directory, customers, adoptKeys, source }: UsageRoutesOptions): void {
  adminRoute<{ Params: { id: string }; Querystring: UsageQuery }>(app, getKeyUsage, async (request) =>
    directory.usage(request.params.id, range(request.query))
  )

  adminRoute<{ Querystring: UsageQuery }>(app, getUsage, async (request) => usage.allUsage(range(request.query)))

  adminRoute<{ Querystring: TopKeysQuery }>(app, listTopKeys, async (request) => {
    const { from, to, by, limit, group } = request.query
    const input = { from: queryMoment('from', from), to: queryMoment('to', to), by, limit }
    return group === 'customer' ? customers.top(input) : directory.top(input)
  })

  // Streamed a page at a time; a bad range is refused before the first line (exportLines checks it at once).
  adminRoute<{ Querystring: UsageExportQuery }>(app, exportUsage, async (request, reply) => {
    const { from, to, granularity, format } = request.query
    const lines = usage.export({ from: queryMoment('from', from), to: queryMoment('to', to), granularity, format }, source)
    await adoptKeys()
    reply.type('application/x-ndjson')
    // Two pages at most wait in the stream's buffer: the rest stays in the database until the client reads on.
    return Readable.from(lines, { highWaterMark: 2 })
  })
}
