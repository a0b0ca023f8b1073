import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createPet, getPet, listPets, PAGE_LIMIT_DEFAULT, stringifyJson, type ListPetsQuery, type NewPet, type Pet } from '@animal-store/contract'
import { ApiError } from '../domain/api-error.ts'
import { idempotencyKeyOf, type IdempotencyService } from '../domain/idempotency.ts'
import type { PetPage, PetService } from '../domain/pets.ts'
import { IdempotencyClaimLostError } from '../storage/types.ts'
import { apiKeyOf } from '../http/api-guard.ts'
import { deprecationHeaders } from '../http/deprecation.ts'
import type { AllowedMethods } from '../http/method-not-allowed.ts'
import { PageCache, type RenderedPage, type Revision } from '../http/page-cache.ts'

export interface PetRoutesOptions {
  allowedMethods: AllowedMethods
  pets: PetService
  idempotency: IdempotencyService
  publicBaseUrl: string
  docsUrl: string
  /** Rendered list pages kept while the store stands still (its revision, or the shared change marker); 0 keeps none. */
  pageCacheEntries: number
  /** The API keys whose latest request the rate limiter refused (kept by the rate-limit step). */
  refusedKeys: ReadonlySet<string>
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The shared change marker as read when a list request arrived (PostgreSQL + Redis with a page cache). */
    changesAtArrival: Promise<Revision | undefined> | undefined
    /** The pet as read when a get arrived (a store across the network, a key in good standing). */
    petAtArrival: Promise<Pet> | undefined
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * How long a page read from a store other instances write is reused at most. Every create
 * made through the service changes the marker at once; this bounds what it cannot see: a
 * change made outside the service (SQL by hand) or a create whose marker write failed
 * while Redis was unreachable.
 */
export const SHARED_PAGE_MAX_AGE_MS = 2000

// Returns nothing: a handler that returns the reply hands Fastify a thenable to wait on.
function sendPage(reply: FastifyReply, page: RenderedPage): void {
  if (page.link !== undefined) reply.header('link', page.link)
  reply.type(JSON_TYPE).send(page.body)
}

const toRoute = (path: string) => `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`

/** The three operations of SPEC.md §4: schema in, service call, schema out. */
export function registerPetRoutes(app: FastifyInstance, { allowedMethods, pets, idempotency, publicBaseUrl, docsUrl, pageCacheEntries, refusedKeys }: PetRoutesOptions): void {
  const base = publicBaseUrl
  const locationOf = (pet: { id: unknown }) => `${base}/pets/${String(pet.id)}`
  const { revision, changes } = pets
  const pages = pageCacheEntries === 0 || (revision === undefined && changes === undefined)
    ? undefined
    : new PageCache(pageCacheEntries, revision === undefined ? SHARED_PAGE_MAX_AGE_MS : undefined)

  app.decorateRequest('changesAtArrival', undefined)
  app.decorateRequest('petAtArrival', undefined)
  // Read on arrival, alongside the rate limiter's round trip, rather than after it. Still
  // later than the request's arrival, so later than any create its client had seen answered.
  const readChangesOnArrival = pages !== undefined && changes !== undefined
    ? (request: FastifyRequest) => { request.changesAtArrival = changes.read() }
    : undefined

  app.route<{ Querystring: ListPetsQuery }>({
    method: listPets.method,
    url: toRoute(listPets.path),
    config: { auth: true, onArrival: readChangesOnArrival },
    schema: { querystring: listPets.query, response: { [listPets.success.status]: listPets.success.schema } },
    // Not async: a cached page, or one read from the embedded store, is sent without a promise
    // (Fastify waits only on a returned promise).
    handler: (request, reply) => {
      const { status, cursor } = request.query
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT
      // The raw cursor is part of the key: only a cursor that decoded once has an entry.
      const key = `${limit}|${status ?? ''}|${cursor ?? ''}`
      // `readAt` is taken before the read, so a write during the read leaves the page stale at once.
      const respond = (readAt: Revision | undefined): void | Promise<FastifyReply> => {
        const cached = readAt === undefined ? undefined : pages!.get(key, readAt)
        if (cached !== undefined) return sendPage(reply, cached)
        const render = (found: PetPage): void => {
          const rendered: RenderedPage = {
            // The route's compiled response serializer, which yields text.
            body: reply.serialize(found.pets) as string,
            link: found.next === undefined ? undefined : `<${base}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${found.next}>; rel="next"`
          }
          if (readAt !== undefined) pages!.set(key, readAt, rendered)
          return sendPage(reply, rendered)
        }
        const found = pets.list(status, limit, cursor)
        // The reply, not undefined, once a promise sent it: Fastify then waits for the response to finish.
        return found instanceof Promise ? found.then((page) => { render(page); return reply }) : render(found)
      }
      if (pages === undefined) return respond(undefined)
      if (revision !== undefined) return respond(revision())
      return (request.changesAtArrival ?? changes!.read()).then((marker) => respond(marker) ?? reply)
    }
  })

  app.route<{ Body: NewPet }>({
    method: createPet.method,
    url: toRoute(createPet.path),
    config: { auth: true },
    schema: { body: createPet.body, response: { [createPet.success.status]: createPet.success.schema } },
    handler: async (request, reply) => {
      const key = idempotencyKeyOf(request.headers['idempotency-key'], request.raw.rawHeaders)
      if (key === undefined) {
        const pet = await pets.create(request.body)
        reply.code(201).header('location', locationOf(pet))
        return pet
      }
      const scope = { apiKeyId: apiKeyOf(request).id, key }
      const claim = await idempotency.claim(scope, request.body)
      if (claim.state === 'completed') {
        const { status, body, location } = claim.response
        if (location !== null) reply.header('location', location)
        return reply.code(status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(body)
      }
      try {
        const pet = await pets.create(request.body, {
          scope,
          token: claim.token,
          respond: (created) => ({ status: 201, body: stringifyJson(created), location: locationOf(created) })
        })
        reply.code(201).header('location', locationOf(pet))
        return pet
      } catch (error) {
        await idempotency.release(scope, claim.token).catch(() => {})
        throw error instanceof IdempotencyClaimLostError ? new ApiError('idempotency_key_in_use', 'another request took over this Idempotency-Key; retry to get its response', { 'retry-after': '1' }) : error
      }
    }
  })
  allowedMethods.add(toRoute(listPets.path), [listPets.method, createPet.method])

  // On a store other instances write (across the network), a get's read starts as the request
  // arrives, alongside the rate limiter's round trip instead of after it; a refused request's
  // read is thrown away. Only for a valid key whose latest request was admitted: requests
  // without one, and a key over its limit or banned, never reach the database before the
  // limiter has answered (a key that crosses its limit costs at most the reads already in
  // flight). The embedded store reads in-process, in microseconds: nothing to overlap.
  const readPetOnArrival = revision === undefined
    ? (request: FastifyRequest) => {
        const { auth } = request
        if (auth === undefined || !auth.ok || refusedKeys.has(auth.key.id)) return
        let pet: Pet | Promise<Pet>
        try {
          pet = pets.get((request.params as { petId: string }).petId)
        } catch {
          return // the handler meets the same error
        }
        if (!(pet instanceof Promise)) return
        // A request the limiter refuses never awaits it: a "not found" must not go unhandled.
        pet.catch(() => {})
        request.petAtArrival = pet
      }
    : undefined

  app.route<{ Params: { petId: string } }>({
    method: getPet.method,
    url: toRoute(getPet.path),
    config: { auth: true, responseHeaders: deprecationHeaders(getPet.deprecated, base, docsUrl), onArrival: readPetOnArrival },
    schema: { response: { [getPet.success.status]: getPet.success.schema } },
    // Not async: an embedded-store pet is sent without a promise (a sync throw reaches the error handler too).
    handler: (request, reply) => {
      const pet = request.petAtArrival ?? pets.get(request.params.petId)
      return pet instanceof Promise ? pet : void reply.send(pet)
    }
  })
  allowedMethods.add(toRoute(getPet.path), [getPet.method], deprecationHeaders(getPet.deprecated, base, docsUrl))
}
