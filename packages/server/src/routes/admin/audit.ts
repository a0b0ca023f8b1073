import type { FastifyInstance } from 'fastify'
import { ADMIN_PAGE_LIMIT_DEFAULT, getCurrentOperator, listAuditEvents, type ListAuditQuery } from '@animal-store/contract'
import type { AuditLog } from '../../domain/audit/log.ts'
import { viewOperator } from '../../domain/operators/service.ts'
import { signedIn } from '../../http/hooks/operators/operator-guard.ts'
import { adminRoute, linkNext } from './route.ts'

/** listAuditEvents, and getCurrentOperator (how a client signs in and learns its role). */
export function registerAuditRoutes(app: FastifyInstance, { audit, baseUrl }: { audit: AuditLog; baseUrl: () => string }): void {
  adminRoute<{ Querystring: ListAuditQuery }>(app, listAuditEvents, async (request, reply) => {
    const query = { ...request.query, limit: request.query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT }
    const { events, next } = await audit.page(query)
    linkNext(reply, `${baseUrl()}/audit`, query, next)
    return events
  })

  adminRoute(app, getCurrentOperator, async (request) => viewOperator(signedIn(request).operator))
}
