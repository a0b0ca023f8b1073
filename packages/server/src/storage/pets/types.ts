import type { Int64, Pet, PetStatus } from '@animal-store/contract'
import type { Maybe } from '../../base/maybe.ts'
import type { IdempotencyCompletion } from './idempotency.ts'

export interface NewPetRecord {
  name: string
  categoryId: Int64
  status: PetStatus
}

export interface PetPageQuery {
  /** Only pets in this status; all when undefined. */
  status: PetStatus | undefined
  /** Only pets with an id greater than this; from the first when undefined. */
  afterId: Int64 | undefined
  limit: number
}

/** A create waiting for its store's next group commit, and how to answer it. */
export interface PendingCreate {
  pet: NewPetRecord
  idempotency: IdempotencyCompletion | undefined
  resolve: (pet: Pet) => void
  reject: (error: unknown) => void
}

export interface PetStore {
  /**
   * Atomically inserts a pet and returns it with its new id, greater than every id before it;
   * durably committed when the promise resolves. With `idempotency`, the claim's response is
   * recorded in the same transaction (IdempotencyClaimLostError, and no pet, when the claim is
   * no longer this request's).
   */
  create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet>
  /**
   * Returns at most `limit` pets in ascending id order, after `afterId` and in `status` when
   * given; one indexed range scan. A store that reads in-process may answer without a promise.
   */
  page(query: PetPageQuery): Maybe<Pet[]>
  /** Returns the pet with this id, or undefined; a store that reads in-process may answer without a promise. */
  get(id: Int64): Maybe<Pet | undefined>
}

/** What the pets were read at: a token that changes whenever they may have changed. */
export type PetsVersionToken = number | string

/**
 * Tells whether the pets changed since a read, so what was read can be reused until they do.
 * `current()` is undefined when it cannot tell (nothing is reused then).
 */
export interface PetsVersion {
  current(): Maybe<PetsVersionToken | undefined>
}
