import {
  DEFAULT_PET_STATUS,
  GET_PET_SUNSET,
  parsePositiveInt64,
  stringifyJson,
  type NewPet,
  type Pet,
  type PetStatus
} from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import { andThen, isPending, type Maybe } from '../../base/maybe.ts'
import type { IdempotencyScope, StoredResponse } from '../../storage/pets/idempotency.ts'
import type { PetStore } from '../../storage/pets/types.ts'
import { ApiError } from '../api-error.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import type { IdempotencyService } from './idempotency.ts'

export interface PetPage {
  pets: Pet[]
  /** Cursor of the following page; undefined on the last page. */
  next: string | undefined
}

/** What a page is asked for with, as `GET /pets` takes it. */
export interface PageQuery {
  status?: PetStatus | undefined
  limit: number
  cursor?: string | undefined
}

function existing(pet: Pet | undefined, petId: string): Pet {
  if (pet === undefined) throw new ApiError('not_found', `no pet has id ${JSON.stringify(petId.slice(0, 40))}`)
  return pet
}

function toPage(rows: Pet[], status: PetStatus | undefined, limit: number): PetPage {
  if (rows.length <= limit) return { pets: rows, next: undefined }
  rows.length = limit
  return { pets: rows, next: encodeCursor(status, rows[limit - 1]!.id) }
}

/** A create's answer: the new pet and its address, or the first response to replay. */
export type Created = { pet: Pet; location: string } | { replay: StoredResponse }

export interface PetServiceOptions {
  clock: Clock
  idempotency: IdempotencyService
  /** The address of a pet (`Location`). */
  locationOf: (pet: Pet) => string
}

/**
 * The pet operations, free of HTTP: paging, defaults, the sunset of getPet. Reads answer
 * without a promise when the store does (and then throw synchronously).
 */
export class PetService {
  readonly #store: PetStore
  readonly #clock: Clock
  readonly #idempotency: IdempotencyService
  readonly #locationOf: (pet: Pet) => string

  constructor(store: PetStore, { clock, idempotency, locationOf }: PetServiceOptions) {
    this.#store = store
    this.#clock = clock
    this.#idempotency = idempotency
    this.#locationOf = locationOf
  }

  list({ status, limit, cursor }: PageQuery): Maybe<PetPage> {
    const afterId = cursor === undefined ? undefined : decodeCursor(cursor, status)
    // One row more than asked tells whether a next page exists without a second query.
    return andThen(this.#store.page({ status, afterId, limit: limit + 1 }), (rows) => toPage(rows, status, limit))
  }

  /** With an Idempotency-Key's scope, creates at most once for it (see IdempotencyService.createOnce). */
  async create(input: NewPet, scope?: IdempotencyScope): Promise<Created> {
    const record = { name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS }
    const locationOf = this.#locationOf
    if (scope === undefined) {
      const pet = await this.#store.create(record)
      return { pet, location: locationOf(pet) }
    }
    const respond = (pet: Pet): StoredResponse => ({ status: 201, body: stringifyJson(pet), location: locationOf(pet) })
    const outcome = await this.#idempotency.createOnce(scope, input, respond, (completion) => this.#store.create(record, completion))
    return 'replay' in outcome ? outcome : { pet: outcome.pet, location: locationOf(outcome.pet) }
  }

  /** @deprecated removed at GET_PET_SUNSET; answers `gone` from then on. */
  get(petId: string): Maybe<Pet> {
    if (this.#clock.now() >= GET_PET_SUNSET.getTime()) {
      throw new ApiError('gone', 'GET /pets/{petId} was removed on 2030-12-05; use GET /pets with the status filter')
    }
    const id = parsePositiveInt64(petId)
    if (id === undefined) return existing(undefined, petId)
    const pet = this.#store.get(id)
    return isPending(pet) ? pet.then((found) => existing(found, petId)) : existing(pet, petId)
  }
}
