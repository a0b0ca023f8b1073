import type { FastifyInstance } from 'fastify'
import {
  ADMIN_PAGE_LIMIT_DEFAULT,
  createCustomer,
  getCustomer,
  getCustomerUsage,
  listCustomers,
  unbanCustomer,
  updateCustomer,
  type CustomerPatch,
  type ListCustomersQuery,
  type NewCustomer,
  type UsageQuery
} from '@animal-store/contract'
import type { CustomerDirectory } from '../../domain/customers/directory.ts'
import type { CustomerService } from '../../domain/customers/service.ts'
import { queryMoment } from '../../domain/iso-time.ts'
import { signedIn } from '../../http/hooks/operators/operator-guard.ts'
import { adminRoute, linkNext } from './route.ts'

interface CustomerRoutesOptions {
  customers: CustomerService
  directory: CustomerDirectory
  /** The operator API's base URL (`http://127.0.0.1:8081/admin/v1`), for `Link` headers. */
  baseUrl: () => string
}

type IdParams = { Params: { id: string } }

/** The customer operations: schema in, one service call, schema out. */
export function registerCustomerRoutes(app: FastifyInstance, { customers, directory, baseUrl }: CustomerRoutesOptions): void {
  adminRoute<{ Querystring: ListCustomersQuery }>(app, listCustomers, async (request, reply) => {
    const query = { ...request.query, limit: request.query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT }
    const { customers: page, next } = await directory.page(query)
    linkNext(reply, `${baseUrl()}/customers`, query, next)
    return page
  })

  adminRoute<{ Body: NewCustomer }>(app, createCustomer, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await customers.create(request.body, actor, origin)).customer
  })

  adminRoute<IdParams>(app, getCustomer, async (request) => customers.get(request.params.id))

  adminRoute<IdParams & { Body: CustomerPatch }>(app, updateCustomer, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await customers.update(request.params.id, request.body, actor, origin)).customer
  })

  adminRoute<IdParams>(app, unbanCustomer, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await customers.unban(request.params.id, actor, origin)).customer
  })

  adminRoute<IdParams & { Querystring: UsageQuery }>(app, getCustomerUsage, async (request) => {
    const { from, to, granularity } = request.query
    return directory.usage(request.params.id, { from: queryMoment('from', from), to: queryMoment('to', to), granularity })
  })
}
