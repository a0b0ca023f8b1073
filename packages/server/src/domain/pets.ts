import { DEFAULT_PET_STATUS, GET_PET_SUNSET, parsePositiveInt64, type NewPet, type Pet, type PetStatus } from '@animal-store/contract'
import type { Clock } from '../clock.ts'
import type { ChangeMarker } from '../storage/change-marker.ts'
import type { IdempotencyCompletion, PetStore } from '../storage/types.ts'
import { ApiError } from './api-error.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'

export interface PetPage {
  pets: Pet[]
  /** Cursor of the following page; undefined on the last page. */
  next: string | undefined
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

/** The pet operations, free of HTTP: paging, defaults, the sunset of getPet. */
export class PetService {
  readonly #store: PetStore
  readonly #clock: Clock
  /** The store's revision when only this process writes it (see PetStore.revision); else undefined. */
  readonly revision: (() => number) | undefined
  /** Where a store other instances also write says it changed (PostgreSQL + Redis); else undefined. */
  readonly changes: ChangeMarker | undefined

  constructor(store: PetStore, clock: Clock, changes?: ChangeMarker) {
    this.#store = store
    this.#clock = clock
    this.revision = store.revision?.bind(store)
    this.changes = this.revision === undefined ? changes : undefined
  }

  /** Synchronous (and throwing) when the store answers synchronously; otherwise a promise. */
  list(status: PetStatus | undefined, limit: number, cursor: string | undefined): PetPage | Promise<PetPage> {
    const afterId = cursor === undefined ? undefined : decodeCursor(cursor, status)
    // One row more than asked tells whether a next page exists without a second query.
    const rows = this.#store.page({ status, afterId, limit: limit + 1 })
    return rows instanceof Promise ? rows.then((settled) => toPage(settled, status, limit)) : toPage(rows, status, limit)
  }

  async create(input: NewPet, idempotency?: IdempotencyCompletion): Promise<Pet> {
    const pet = await this.#store.create({ name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS }, idempotency)
    await this.changes?.bump()
    return pet
  }

  /**
   * @deprecated removed at GET_PET_SUNSET; answers `gone` from then on.
   * Synchronous (and throwing) when the store answers synchronously; otherwise a promise.
   */
  get(petId: string): Pet | Promise<Pet> {
    if (this.#clock.now() >= GET_PET_SUNSET.getTime()) {
      throw new ApiError('gone', 'GET /pets/{petId} was removed on 2030-12-05; use GET /pets with the status filter')
    }
    const id = parsePositiveInt64(petId)
    const found = id === undefined ? undefined : this.#store.get(id)
    return found instanceof Promise ? found.then((pet) => existing(pet, petId)) : existing(found, petId)
  }
}
