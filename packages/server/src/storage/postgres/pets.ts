import { toInt64, type Int64, type Pet, type PetStatus } from '@animal-store/contract'
import { IdempotencyClaimLostError, type IdempotencyCompletion } from '../pets/idempotency.ts'
import { type NewPetRecord, type PendingCreate, type PetPageQuery, type PetStore } from '../pets/types.ts'
import type { PoolClient, QueryResultRow } from 'pg'
import { PerTurnLookup } from '../../base/per-turn.ts'
import type { PostgresPool } from './pool.ts'

const PET_COLUMNS = 'id, name, category_id, status'

interface PetRow {
  id: string
  name: Buffer
  category_id: string
  status: PetStatus
}

function toPet(row: PetRow): Pet {
  return { id: toInt64(BigInt(row.id)), name: row.name.toString('utf8'), categoryId: toInt64(BigInt(row.category_id)), status: row.status }
}

/** int64 parameters travel as decimal text, never through a JS number. */
const int64Param = (value: Int64) => value.toString()

/** Pets per transaction: bounds one statement's parameters and how long the id lock is held. */
const MAX_BATCH = 256

/** Ids per lookup query. */
const MAX_LOOKUPS = 256

/** Inserts a batch under the pet-id lock (see migration 3); the ids come back in batch order. */
const INSERT_PETS = 'SELECT insert_pets($1::bytea[], $2::int8[], $3::text[])::text[] AS ids'

/** Runs a prepared statement on the pool or on a transaction's connection; its rows. */
type RunPrepared = <R extends QueryResultRow>(text: string, values: unknown[], name: string) => Promise<R[]>

/** Inserts a batch by `insert_pets` through `run`; the pets as stored, in batch order. */
async function insertPets(run: RunPrepared, batch: PendingCreate[]): Promise<Pet[]> {
  const names = batch.map(({ pet }) => Buffer.from(pet.name, 'utf8'))
  const [row] = await run<{ ids: string[] }>(
    INSERT_PETS,
    [names, batch.map(({ pet }) => int64Param(pet.categoryId)), batch.map(({ pet }) => pet.status)],
    'pets_insert'
  )
  // The name as stored: a lone surrogate becomes U+FFFD in UTF-8, and the answer must say so.
  return batch.map(({ pet }, i) => ({
    id: toInt64(BigInt(row!.ids[i]!)),
    name: names[i]!.toString('utf8'),
    categoryId: pet.categoryId,
    status: pet.status
  }))
}

/** Inserts a batch holding Idempotency-Keys in the caller's transaction; each create's outcome: its pet, or why it alone failed. */
async function insertIdempotentBatch(client: PoolClient, batch: PendingCreate[]): Promise<Array<Pet | Error>> {
  const run: RunPrepared = async <R extends QueryResultRow>(text: string, values: unknown[], name: string) =>
    (await client.query<R>({ name, text, values })).rows
  const pets = await insertPets(run, batch)
  const outcomes: Array<Pet | Error> = [...pets]
  const lost = await completeIdempotency(client, batch, pets)
  if (lost.length > 0) {
    // The pet and the response a retry will replay commit together, or neither does.
    await client.query('DELETE FROM pets WHERE id = ANY($1::int8[])', [lost.map((i) => int64Param(pets[i]!.id))])
    for (const i of lost) outcomes[i] = new IdempotencyClaimLostError('the Idempotency-Key claim lapsed before the create committed')
  }
  return outcomes
}

/** Stores the response each idempotent create will replay; returns the batch positions whose claim had lapsed. */
async function completeIdempotency(client: PoolClient, batch: PendingCreate[], pets: Pet[]): Promise<number[]> {
  const positions = batch.flatMap(({ idempotency }, i) => (idempotency === undefined ? [] : [i]))
  if (positions.length === 0) return []
  const completions = positions.map((i) => {
    const idempotency = batch[i]!.idempotency!
    return { scope: idempotency.scope, token: idempotency.token, response: idempotency.respond(pets[i]!) }
  })
  // Only while the claim is still this request's (same token, not completed).
  const { rows } = await client.query<{ token: string }>(
    `UPDATE idempotency_keys AS k SET status = u.status, body = u.body, location = u.location
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
       AS u(api_key_id, idempotency_key, token, status, body, location)
     WHERE k.api_key_id = u.api_key_id AND k.idempotency_key = u.idempotency_key AND k.token = u.token AND k.status IS NULL
     RETURNING k.token`,
    [
      completions.map((c) => c.scope.apiKeyId),
      completions.map((c) => c.scope.key),
      completions.map((c) => c.token),
      completions.map((c) => c.response.status),
      completions.map((c) => c.response.body),
      completions.map((c) => c.response.location)
    ]
  )
  const completed = new Set(rows.map((row) => row.token))
  return positions.filter((i) => !completed.has(batch[i]!.idempotency!.token))
}

export class PostgresPets implements PetStore {
  readonly #db: PostgresPool
  readonly #lookups: PerTurnLookup<PetRow>
  #pending: PendingCreate[] = []
  #committing = false

  constructor(db: PostgresPool) {
    this.#db = db
    // The gets of one event-loop turn share one query.
    this.#lookups = new PerTurnLookup(async (ids) => {
      const rows = await db.query<PetRow>(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ANY($1::int8[])`, [ids], 'pets_get_many')
      return new Map(rows.map((row) => [row.id, row]))
    }, MAX_LOOKUPS)
  }

  /**
   * Group commit: creates that arrive while a batch is committing wait for the next one, and
   * each batch is one transaction (one lock, one WAL flush) however many pets it holds. Ids are
   * handed out under the lock, so they still become visible in ascending order on every instance.
   */
  create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ pet, idempotency, resolve, reject })
      if (!this.#committing) void this.#commitPending()
    })
  }

  async #commitPending(): Promise<void> {
    this.#committing = true
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH)
      try {
        const outcomes = batch.some(({ idempotency }) => idempotency !== undefined)
          ? await this.#db.transaction((client) => insertIdempotentBatch(client, batch))
          : await this.#insert(batch)
        batch.forEach(({ resolve, reject }, i) => {
          const outcome = outcomes[i]!
          if (outcome instanceof Error) reject(outcome)
          else resolve(outcome)
        })
      } catch (error) {
        for (const { reject } of batch) reject(error)
      }
    }
    this.#committing = false
  }

  /** A batch without Idempotency-Keys: one statement, its own transaction. */
  #insert(batch: PendingCreate[]): Promise<Pet[]> {
    return insertPets((text, values, name) => this.#db.query(text, values, name), batch)
  }

  async page({ status, afterId, limit }: PetPageQuery): Promise<Pet[]> {
    const after = int64Param(afterId ?? 0)
    const rows =
      status === undefined
        ? await this.#db.query<PetRow>(
            `SELECT ${PET_COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`,
            [after, limit],
            'pets_page_all'
          )
        : await this.#db.query<PetRow>(
            `SELECT ${PET_COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`,
            [status, after, limit],
            'pets_page_by_status'
          )
    return rows.map(toPet)
  }

  async get(id: Int64): Promise<Pet | undefined> {
    const row = await this.#lookups.get(int64Param(id))
    return row === undefined ? undefined : toPet(row)
  }
}
