import { toInt64, type Int64, type Pet, type PetStatus } from '@animal-store/contract'
import { IdempotencyClaimLostError, type IdempotencyCompletion, type NewPetRecord, type PetPageQuery, type PetStore } from '../types.ts'
import type { PostgresPool } from './pool.ts'

/** Advisory-lock namespace ("anpi") for pet id assignment; the table's oid is the second key. */
const PET_ID_LOCK_SPACE = 0x616e7069

const PET_COLUMNS = 'id, name, category_id, status'

interface PetRow { id: string, name: Buffer, category_id: string, status: PetStatus }

function toPet(row: PetRow): Pet {
  return { id: toInt64(BigInt(row.id)), name: row.name.toString('utf8'), categoryId: toInt64(BigInt(row.category_id)), status: row.status }
}

/** int64 parameters travel as decimal text, never through a JS number. */
const int64Param = (value: Int64) => value.toString()

export class PostgresPets implements PetStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet> {
    return this.#db.transaction(async (client) => {
      // Keyset paging reads "ids after the last one I saw". An identity sequence hands out ids
      // before commit, so two concurrent inserts can become visible out of order (11 before 10):
      // a reader would then page past 10 and never see it. Holding this lock from nextval to
      // commit makes ids become visible in ascending order, on every instance. The cost: inserts
      // into one table are serialised (a few round trips each); reads never wait on it.
      await client.query(`SELECT pg_advisory_xact_lock(${PET_ID_LOCK_SPACE}, 'pets'::regclass::oid::int4)`)
      const result = await client.query<PetRow>(
        `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${PET_COLUMNS}`,
        [Buffer.from(pet.name, 'utf8'), int64Param(pet.categoryId), pet.status]
      )
      const created = toPet(result.rows[0]!)
      if (idempotency !== undefined) {
        // The pet and the response a retry will replay commit together, or neither does.
        const response = idempotency.respond(created)
        const { scope, token } = idempotency
        const completed = await client.query(
          'UPDATE idempotency_keys SET status = $1, body = $2, location = $3 WHERE api_key_id = $4 AND idempotency_key = $5 AND token = $6 AND status IS NULL',
          [response.status, response.body, response.location, scope.apiKeyId, scope.key, token]
        )
        if (completed.rowCount === 0) throw new IdempotencyClaimLostError('the Idempotency-Key claim lapsed before the create committed')
      }
      return created
    })
  }

  async page({ status, afterId, limit }: PetPageQuery): Promise<Pet[]> {
    const after = int64Param(afterId ?? 0)
    const rows = status === undefined
      ? await this.#db.query<PetRow>(`SELECT ${PET_COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [after, limit], 'pets_page_all')
      : await this.#db.query<PetRow>(`SELECT ${PET_COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`, [status, after, limit], 'pets_page_by_status')
    return rows.map(toPet)
  }

  async get(id: Int64): Promise<Pet | undefined> {
    const [row] = await this.#db.query<PetRow>(`SELECT ${PET_COLUMNS} FROM pets WHERE id = $1`, [int64Param(id)], 'pets_get')
    return row === undefined ? undefined : toPet(row)
  }
}
