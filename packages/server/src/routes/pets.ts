import type { FastifyInstance } from 'fastify'
import { createPet, getPet, listPets, PAGE_LIMIT_DEFAULT, type ListPetsQuery, type NewPet } from '@animal-store/contract'
import type { PetService } from '../domain/pets.ts'
import { deprecationHeaders } from '../http/deprecation.ts'
import { registerMethodNotAllowed } from '../http/method-not-allowed.ts'

export interface PetRoutesOptions {
  pets: PetService
  publicBaseUrl: string
  docsUrl: string
}

const toRoute = (path: string) => `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`

/** The three operations of SPEC.md §4: schema in, service call, schema out. */
export function registerPetRoutes(app: FastifyInstance, { pets, publicBaseUrl, docsUrl }: PetRoutesOptions): void {
  const base = publicBaseUrl

  app.route<{ Querystring: ListPetsQuery }>({
    method: listPets.method,
    url: toRoute(listPets.path),
    config: { auth: true },
    schema: { querystring: listPets.query, response: { [listPets.success.status]: listPets.success.schema } },
    handler: async (request, reply) => {
      const { status, cursor } = request.query
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT
      const page = await pets.list(status, limit, cursor)
      if (page.next !== undefined) {
        reply.header('link', `<${base}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${page.next}>; rel="next"`)
      }
      return page.pets
    }
  })

  app.route<{ Body: NewPet }>({
    method: createPet.method,
    url: toRoute(createPet.path),
    config: { auth: true },
    schema: { body: createPet.body, response: { [createPet.success.status]: createPet.success.schema } },
    handler: async (request, reply) => {
      const pet = await pets.create(request.body)
      reply.code(201).header('location', `${base}/pets/${pet.id}`)
      return pet
    }
  })
  registerMethodNotAllowed(app, toRoute(listPets.path), [listPets.method, createPet.method])

  app.route<{ Params: { petId: string } }>({
    method: getPet.method,
    url: toRoute(getPet.path),
    config: { auth: true, responseHeaders: deprecationHeaders(getPet.deprecated, base, docsUrl) },
    schema: { response: { [getPet.success.status]: getPet.success.schema } },
    handler: async (request) => pets.get(request.params.petId)
  })
  registerMethodNotAllowed(app, toRoute(getPet.path), [getPet.method], deprecationHeaders(getPet.deprecated, base, docsUrl))
}
