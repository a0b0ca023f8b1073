import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { Int64, Pet, PetStatus } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import { IdempotencyClaimLostError, type IdempotencyCompletion } from '../pets/idempotency.ts'
import { type NewPetRecord, type PendingCreate, type PetPageQuery, type PetStore, type PetsVersion } from '../pets/types.ts'
import type { TurnSnapshot } from './turn-snapshot.ts'

// node:sqlite refuses to read an integer beyond 2^53 as a number; rather than reading every
// integer as a bigint, the query hands those few over as text and we make them bigints.
const int64Column = (column: string, alias: string) =>
  `CASE WHEN ${column} > 9007199254740991 THEN CAST(${column} AS TEXT) ELSE ${column} END AS ${alias}`
const PET_COLUMNS = `${int64Column('id', 'id')}, name, ${int64Column('category_id', 'categoryId')}, status`

// Rows come back as arrays (in PET_COLUMNS order): node:sqlite builds them faster than objects.
type PetRow = [id: number | string, name: string, categoryId: number | string, status: PetStatus]

const int64 = (value: number | string): Int64 => (typeof value === 'number' ? value : BigInt(value))

function toPet(row: PetRow): Pet {
  return { id: int64(row[0]), name: row[1], categoryId: int64(row[2]), status: row[3] }
}

// How often the file is asked whether another program changed it: the store is this process's
// alone (DESIGN §4), so this only bounds how long an outside edit (sqlite3 by hand) goes unseen.
const OUTSIDE_CHANGE_CHECK_MS = 250

/** The pets of the embedded store: group-committed creates, reads on the per-turn snapshot. */
export class SqlitePets implements PetStore, PetsVersion {
  readonly #db: DatabaseSync
  readonly #snapshot: TurnSnapshot | undefined
  readonly #clock: Clock
  #pending: PendingCreate[] = []
  #revision = 0
  #dataVersion: unknown = undefined
  #checkedAt = Number.NEGATIVE_INFINITY
  readonly #dataVersionQuery: StatementSync
  readonly #complete: StatementSync
  readonly #insert: StatementSync
  readonly #get: StatementSync
  readonly #pageAll: StatementSync
  readonly #pageByStatus: StatementSync

  /** `reads`: where gets and pages run; `snapshot`, when given, is that connection's per-turn transaction. */
  constructor(db: DatabaseSync, reads: DatabaseSync, snapshot: TurnSnapshot | undefined, clock: Clock) {
    this.#db = db
    this.#snapshot = snapshot
    this.#clock = clock
    this.#complete = db.prepare(`UPDATE idempotency_keys SET status = ?, body = ?, location = ?
      WHERE api_key_id = ? AND idempotency_key = ? AND token = ? AND status IS NULL`)
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`)
    // Columns are qualified: in ORDER BY a bare `id` would name the CASE alias above, and
    // SQLite would sort the whole table instead of walking the index.
    this.#get = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.id = ?`)
    this.#pageAll = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.id > ? ORDER BY pets.id LIMIT ?`)
    this.#pageByStatus = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.status = ? AND pets.id > ? ORDER BY pets.id LIMIT ?`)
    // Changes when another connection commits to the file; this connection's own commits are counted in #revision.
    this.#dataVersionQuery = db.prepare('PRAGMA data_version')
    for (const statement of [this.#insert, this.#get, this.#pageAll, this.#pageByStatus, this.#dataVersionQuery]) {
      statement.setReturnArrays(true)
    }
  }

  /** Changes with every create of this process at once, and within 250 ms of another program's commit. */
  current(): number {
    const now = this.#clock.now()
    if (now - this.#checkedAt >= OUTSIDE_CHANGE_CHECK_MS || now < this.#checkedAt) {
      this.#checkedAt = now
      const version = (this.#dataVersionQuery.get() as unknown as [number])[0]
      if (version !== this.#dataVersion) {
        this.#dataVersion = version
        this.#revision++
      }
    }
    return this.#revision
  }

  /**
   * Group commit: creates that arrive while the event loop is busy are written in one
   * transaction, so one fsync makes a whole batch durable before any of them is answered.
   * Each create runs under its own savepoint, so one failing create fails alone.
   */
  create(pet: NewPetRecord, idempotency?: IdempotencyCompletion): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ pet, idempotency, resolve, reject })
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending())
    })
  }

  #commitPending(): void {
    const batch = this.#pending
    this.#pending = []
    // Before the first write: a page read from here on may already miss one of these pets,
    // and no read may go on seeing the file as it was before them.
    this.#revision++
    this.#snapshot?.end()
    const outcomes: Array<{ pet: Pet } | { error: unknown }> = []
    try {
      this.#db.exec('BEGIN IMMEDIATE')
      for (const { pet, idempotency } of batch) outcomes.push(this.#insertAlone(pet, idempotency))
      this.#db.exec('COMMIT')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      for (const { reject } of batch) reject(error)
      return
    }
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i]!
      if ('pet' in outcome) resolve(outcome.pet)
      else reject(outcome.error)
    })
  }

  /** One create of a batch, under a savepoint of its own so that its failure is its alone. */
  #insertAlone(pet: NewPetRecord, idempotency: IdempotencyCompletion | undefined): { pet: Pet } | { error: unknown } {
    this.#db.exec('SAVEPOINT pet')
    try {
      const created = this.#insertOne(pet, idempotency)
      this.#db.exec('RELEASE pet')
      return { pet: created }
    } catch (error) {
      this.#db.exec('ROLLBACK TO pet')
      this.#db.exec('RELEASE pet')
      return { error }
    }
  }

  #insertOne(pet: NewPetRecord, idempotency: IdempotencyCompletion | undefined): Pet {
    const created = toPet(this.#insert.get(pet.name, pet.categoryId, pet.status) as unknown as PetRow)
    if (idempotency !== undefined) {
      // The pet and the response a retry will replay commit together, or neither does.
      const response = idempotency.respond(created)
      const { scope, token } = idempotency
      if (this.#complete.run(response.status, response.body, response.location, scope.apiKeyId, scope.key, token).changes === 0) {
        throw new IdempotencyClaimLostError('the Idempotency-Key claim lapsed before the create committed')
      }
    }
    return created
  }

  page({ status, afterId, limit }: PetPageQuery): Pet[] {
    this.#snapshot?.enter()
    const rows = (status === undefined
      ? this.#pageAll.all(afterId ?? 0, limit)
      : this.#pageByStatus.all(status, afterId ?? 0, limit)) as unknown as PetRow[]
    return rows.map(toPet)
  }

  // Synchronous: node:sqlite reads in-process, and a get needs no promise on the hot path.
  get(id: Int64): Pet | undefined {
    this.#snapshot?.enter()
    const row = this.#get.get(id) as unknown as PetRow | undefined
    return row === undefined ? undefined : toPet(row)
  }
}
