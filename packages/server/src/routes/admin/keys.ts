import type { FastifyInstance } from 'fastify'
import {
  ADMIN_PAGE_LIMIT_DEFAULT,
  createKey,
  getKey,
  listKeys,
  updateKey,
  type KeyPatch,
  type ListKeysQuery,
  type NewKey
} from '@animal-store/contract'
import type { KeyDirectory } from '../../domain/keys/directory.ts'
import type { KeyService } from '../../domain/keys/service.ts'
import { signedIn } from '../../http/hooks/operators/operator-guard.ts'
import { adminRoute, linkNext } from './route.ts'

interface KeyRoutesOptions {
  keys: KeyService
  directory: KeyDirectory
  /** The operator API's base URL (`http://127.0.0.1:8081/admin/v1`), for `Link` headers. */
  baseUrl: () => string
}

type IdParams = { Params: { id: string } }

/** listKeys, createKey, getKey and updateKey: schema in, one service call, schema out. */
export function registerKeyRoutes(app: FastifyInstance, { keys, directory, baseUrl }: KeyRoutesOptions): void {
  adminRoute<{ Querystring: ListKeysQuery }>(app, listKeys, async (request, reply) => {
    const query = { ...request.query, limit: request.query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT }
    const { keys: page, next } = await directory.page(query)
    linkNext(reply, `${baseUrl()}/keys`, query, next)
    return page
  })

  adminRoute<{ Body: NewKey }>(app, createKey, async (request) => {
    const { actor, origin } = signedIn(request)
    const { key, view } = await keys.create(request.body, actor, origin)
    return { ...view, key }
  })

  adminRoute<IdParams>(app, getKey, async (request) => keys.get(request.params.id))

  adminRoute<IdParams & { Body: KeyPatch }>(app, updateKey, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await keys.update(request.params.id, request.body, actor, origin)).view
  })
}
