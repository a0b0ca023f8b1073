import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createPet, getPet, listPets, PAGE_LIMIT_DEFAULT, type ListPetsQuery, type NewPet, type Pet } from '@animal-store/contract'
import { idempotencyKeyOf } from '../domain/pets/idempotency.ts'
import type { Created, PetService } from '../domain/pets/service.ts'
import type { IdempotencyScope } from '../storage/pets/idempotency.ts'
import { apiKeyOf } from '../http/hooks/api/api-guard.ts'
import { deprecationHeaders } from './pets/deprecation.ts'
import type { PetPages, RenderedPage } from '../http/services/page-cache.ts'
import { asRequested, readsInt64Strings } from './pets/int64-strings.ts'
import { respondWhenReady } from './pets/respond-when-ready.ts'

export interface PetRoutesOptions {
  pets: PetService
  pages: PetPages
  publicBaseUrl: string
  docsUrl: string
}

const JSON_TYPE = 'application/json; charset=utf-8'

const toRoute = (path: string) => `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`

/** A rendered page's body, its `Link` header set: already JSON text, sent as it is (unless int64 strings are asked for). */
function pageBody(request: FastifyRequest, reply: FastifyReply, page: RenderedPage): unknown {
  if (page.link !== undefined) reply.header('link', page.link)
  reply.type(JSON_TYPE)
  return asRequested(request, reply, listPets.success.schema, page.body)
}

const petBody = (request: FastifyRequest, reply: FastifyReply, pet: Pet): unknown => asRequested(request, reply, getPet.success.schema, pet)

/** The new pet (serialized by the route's schema), or the first response to replay as it was. */
function createdBody(reply: FastifyReply, created: Created): unknown {
  if ('pet' in created) {
    reply.code(201).header('location', created.location)
    return created.pet
  }
  const { status, body, location } = created.replay
  if (location !== null) reply.header('location', location)
  reply.code(status).header('idempotent-replayed', 'true').type(JSON_TYPE)
  return body
}

/** The Idempotency-Key of a create, scoped to its API key; undefined without one. */
function idempotencyScopeOf(request: FastifyRequest): IdempotencyScope | undefined {
  const key = idempotencyKeyOf(request.headers['idempotency-key'], request.raw.rawHeaders)
  return key === undefined ? undefined : { apiKeyId: apiKeyOf(request).id, key }
}

/** The three operations of SPEC.md §4: schema in, one service call, schema out. */
export function registerPetRoutes(app: FastifyInstance, { pets, pages, publicBaseUrl, docsUrl }: PetRoutesOptions): void {
  app.route<{ Querystring: ListPetsQuery }>({
    method: listPets.method,
    url: toRoute(listPets.path),
    config: { auth: true, scope: 'pets:read' },
    schema: { querystring: listPets.query, response: { [listPets.success.status]: listPets.success.schema } },
    handler: (request, reply) => {
      const { status, cursor, limit = PAGE_LIMIT_DEFAULT } = request.query
      return respondWhenReady(request, reply, pages.page({ status, cursor, limit }), pageBody)
    }
  })

  app.route<{ Body: NewPet }>({
    method: createPet.method,
    url: toRoute(createPet.path),
    config: { auth: true, scope: 'pets:write' },
    schema: { body: createPet.body, response: { [createPet.success.status]: createPet.success.schema } },
    preValidation: readsInt64Strings(createPet.body),
    handler: async (request, reply) =>
      asRequested(
        request,
        reply,
        createPet.success.schema,
        createdBody(reply, await pets.create(request.body, idempotencyScopeOf(request)))
      )
  })

  const deprecation = deprecationHeaders(getPet.deprecated, publicBaseUrl, docsUrl)
  app.route<{ Params: { petId: string } }>({
    method: getPet.method,
    url: toRoute(getPet.path),
    config: { auth: true, scope: 'pets:read', responseHeaders: deprecation },
    schema: { querystring: getPet.query, response: { [getPet.success.status]: getPet.success.schema } },
    handler: (request, reply) => respondWhenReady(request, reply, pets.get(request.params.petId), petBody)
  })
}
