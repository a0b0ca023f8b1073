import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { Int64, Pet, PetStatus } from '@animal-store/contract'
import { IdempotencyClaimLostError, type ApiKeyRecord, type IdempotencyCompletion, type IdempotencyStore, type KeyStore, type NewPetRecord, type PendingCreate, type PetPageQuery, type PetStore, type Storage } from '../types.ts'
import { SqliteIdempotency } from './idempotency.ts'
import { keyFromRow, type KeyRow } from '../key-row.ts'
import { SQLITE_MIGRATIONS } from './migrations.ts'
import { TurnSnapshot } from './turn-snapshot.ts'

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

export interface SqliteOptions {
  /** `FULL` (default) makes a commit survive power loss; `NORMAL` only a process crash. */
  synchronous?: 'FULL' | 'NORMAL'
}

// How often the file is asked whether another program changed it: the store is this process's
// alone (DESIGN §4), so this only bounds how long an outside edit (sqlite3 by hand) goes unseen.
const OUTSIDE_CHANGE_CHECK_MS = 250

// The read connection maps the file rather than copying each page it needs into its 2 MB
// cache: a get by id in a large store lands on a leaf page that cache rarely holds, and a
// mapped page costs no read() and no copy. The mapped pages are the OS page cache's own (they
// count in the process's RSS, but are not extra memory). Beyond this size, reads fall back to read().
const READ_MMAP_BYTES = 256 * 1024 * 1024

class SqlitePets implements PetStore {
  readonly #db: DatabaseSync
  readonly #snapshot: TurnSnapshot | undefined
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
  constructor(db: DatabaseSync, reads: DatabaseSync, snapshot: TurnSnapshot | undefined) {
    this.#db = db
    this.#snapshot = snapshot
    this.#complete = db.prepare('UPDATE idempotency_keys SET status = ?, body = ?, location = ? WHERE api_key_id = ? AND idempotency_key = ? AND token = ? AND status IS NULL')
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`)
    // Columns are qualified: in ORDER BY a bare `id` would name the CASE alias above, and
    // SQLite would sort the whole table instead of walking the index.
    this.#get = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.id = ?`)
    this.#pageAll = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.id > ? ORDER BY pets.id LIMIT ?`)
    this.#pageByStatus = reads.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE pets.status = ? AND pets.id > ? ORDER BY pets.id LIMIT ?`)
    // Changes when another connection commits to the file; this connection's own commits are counted in #revision.
    this.#dataVersionQuery = db.prepare('PRAGMA data_version')
    for (const statement of [this.#insert, this.#get, this.#pageAll, this.#pageByStatus, this.#dataVersionQuery]) statement.setReturnArrays(true)
  }

  revision(): number {
    const now = performance.now()
    if (now - this.#checkedAt >= OUTSIDE_CHANGE_CHECK_MS) {
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
      for (const { pet, idempotency } of batch) {
        this.#db.exec('SAVEPOINT pet')
        try {
          outcomes.push({ pet: this.#insertOne(pet, idempotency) })
          this.#db.exec('RELEASE pet')
        } catch (error) {
          this.#db.exec('ROLLBACK TO pet')
          this.#db.exec('RELEASE pet')
          outcomes.push({ error })
        }
      }
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

const KEY_COLUMNS = 'id, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at'

const toKey = (row: KeyRow<number>): ApiKeyRecord => keyFromRow(row, (value) => value)

class SqliteKeys implements KeyStore {
  readonly #db: DatabaseSync
  readonly #byHash: StatementSync

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#byHash = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE secret_hash = ?`)
  }

  async create(key: ApiKeyRecord, secretHash: string): Promise<void> {
    this.#db.prepare(`INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      key.id, secretHash, key.prefix, key.name, key.plan, key.perMinute, key.perDay, key.createdAt, key.expiresAt, key.revokedAt
    )
  }

  async findByHash(secretHash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#byHash.get(secretHash) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`).all() as unknown as KeyRow<number>[]).map(toKey)
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const result = this.#db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(at, id)
    return result.changes > 0
  }
}

/** The embedded default: one SQLite file in WAL mode, used by one serving process. */
export class SqliteStorage implements Storage {
  readonly kind = 'sqlite'
  readonly db: DatabaseSync
  readonly #path: string
  #reads: DatabaseSync | undefined
  #pets: SqlitePets | undefined
  #keys: SqliteKeys | undefined
  #idempotency: SqliteIdempotency | undefined

  constructor(path: string, options: SqliteOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#path = path
    this.db = new DatabaseSync(path, { timeout: 5000 })
    this.db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous ?? 'FULL'}; PRAGMA foreign_keys = ON;`)
  }

  // Statements are prepared on first use: the tables exist only once migrate() has run.
  get pets(): PetStore {
    this.#pets ??= this.#openPets()
    return this.#pets
  }

  // Gets and pages read on a second, read-only connection, one transaction per turn
  // (turn-snapshot.ts); an in-memory database has no second connection and reads on the first.
  #openPets(): SqlitePets {
    if (this.#path === ':memory:') return new SqlitePets(this.db, this.db, undefined)
    this.#reads = new DatabaseSync(this.#path, { readOnly: true, timeout: 5000 })
    this.#reads.exec(`PRAGMA mmap_size = ${READ_MMAP_BYTES}`)
    return new SqlitePets(this.db, this.#reads, new TurnSnapshot(this.#reads))
  }

  get keys(): KeyStore {
    this.#keys ??= new SqliteKeys(this.db)
    return this.#keys
  }

  get idempotency(): IdempotencyStore {
    this.#idempotency ??= new SqliteIdempotency(this.db)
    return this.#idempotency
  }

  async migrate(): Promise<number> {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT')
    let applied = 0
    for (const migration of SQLITE_MIGRATIONS) {
      // IMMEDIATE takes the write lock first, so a CLI and a server starting together apply each migration once.
      this.db.exec('BEGIN IMMEDIATE')
      try {
        const done = this.db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version)
        if (done === undefined) {
          this.db.exec(migration.sql)
          this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, Date.now())
          applied++
        }
        this.db.exec('COMMIT')
      } catch (error) {
        this.db.exec('ROLLBACK')
        throw error
      }
    }
    return applied
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get()
  }

  async close(): Promise<void> {
    if (this.#reads?.isOpen) this.#reads.close()
    if (this.db.isOpen) this.db.close()
  }
}
