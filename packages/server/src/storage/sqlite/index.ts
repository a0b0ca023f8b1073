import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { Clock } from '../../base/clock.ts'
import { runMigrations, type Migration, type MigrationTarget } from '../migrations.ts'
import type { Storage } from '../types.ts'
import { SqliteAudit } from './audit.ts'
import { SqliteCounterFile } from './counters.ts'
import { SqliteIdempotency } from './idempotency.ts'
import { SqliteCustomers } from './customers.ts'
import { SqliteKeys } from './keys.ts'
import { SQLITE_MIGRATIONS } from './migrations/list.ts'
import { SqliteOperators } from './operators.ts'
import { SqlitePets } from './pets.ts'
import { SqlitePlans } from './plans.ts'
import { SqliteUsage } from './usage.ts'
import { TurnSnapshot } from './turn-snapshot.ts'

// The read connection maps the file rather than copying each page it needs into its 2 MB
// cache: a get by id in a large store lands on a leaf page that cache rarely holds, and a
// mapped page costs no read() and no copy. The mapped pages are the OS page cache's own (they
// count in the process's RSS, but are not extra memory). Beyond this size, reads fall back to read().
const READ_MMAP_BYTES = 256 * 1024 * 1024

/** How long opening a store waits for another process that is switching a new file to WAL. */
const WAL_SWITCH_WAIT_MS = 5000

/**
 * Switches the file to WAL. Switching a new file needs an exclusive lock, and SQLite answers
 * "database is locked" at once, without its busy timeout, while another process (a CLI and a
 * server starting together) holds it: wait and try again.
 */
function enterWalMode(db: DatabaseSync): void {
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let waited = 0; ; waited += 10) {
    try {
      db.exec('PRAGMA journal_mode = WAL')
      return
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY || waited >= WAL_SWITCH_WAIT_MS) throw error
      Atomics.wait(pause, 0, 0, 10)
    }
  }
}

const SQLITE_BUSY = 5

/** Migrations under SQLite's write lock: a CLI and a server starting together apply each once. */
class SqliteMigrations implements MigrationTarget {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT'
    )
  }

  async applied(): Promise<ReadonlySet<number>> {
    const rows = this.#db.prepare('SELECT version FROM schema_migrations').all() as unknown as Array<{ version: number }>
    return new Set(rows.map((row) => row.version))
  }

  async apply(migration: Migration): Promise<boolean> {
    // IMMEDIATE takes the write lock before the check, so the check and the change are one step.
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      const done = this.#db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version) !== undefined
      if (!done) {
        this.#db.exec(migration.sql)
        this.#db
          .prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, CAST(unixepoch('subsec') * 1000 AS INTEGER))")
          .run(migration.version, migration.name)
      }
      this.#db.exec('COMMIT')
      return !done
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    }
  }
}

/**
 * The embedded default: one SQLite file in WAL mode, used by one serving process. Gets and
 * pages read on a second, read-only connection, one transaction per turn (turn-snapshot.ts);
 * an in-memory database has no second connection and reads on the first.
 */
export class SqliteStorage implements Storage {
  readonly #db: DatabaseSync
  readonly #path: string
  readonly #clock: Clock
  #reads: DatabaseSync | undefined
  #pets: SqlitePets | undefined
  #keys: SqliteKeys | undefined
  #idempotency: SqliteIdempotency | undefined
  #counters: SqliteCounterFile | undefined
  #usage: SqliteUsage | undefined
  #operators: SqliteOperators | undefined
  #audit: SqliteAudit | undefined
  #plans: SqlitePlans | undefined
  #customers: SqliteCustomers | undefined

  constructor(path: string, clock: Clock) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#path = path
    this.#clock = clock
    this.#db = new DatabaseSync(path, { timeout: 5000 })
    enterWalMode(this.#db)
    // FULL: a commit is fsynced before its 201 is sent, so it survives a power loss too.
    this.#db.exec('PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;')
  }

  // Statements are prepared on first use: the tables exist only once migrate() has run.
  get pets(): SqlitePets {
    this.#pets ??= this.#openPets()
    return this.#pets
  }

  #openPets(): SqlitePets {
    if (this.#path === ':memory:') return new SqlitePets(this.#db, this.#db, undefined, this.#clock)
    this.#reads = new DatabaseSync(this.#path, { readOnly: true, timeout: 5000 })
    this.#reads.exec(`PRAGMA mmap_size = ${READ_MMAP_BYTES}`)
    return new SqlitePets(this.#db, this.#reads, new TurnSnapshot(this.#reads), this.#clock)
  }

  get keys(): SqliteKeys {
    this.#keys ??= new SqliteKeys(this.#db)
    return this.#keys
  }

  get idempotency(): SqliteIdempotency {
    this.#idempotency ??= new SqliteIdempotency(this.#db)
    return this.#idempotency
  }

  get usage(): SqliteUsage {
    this.#usage ??= new SqliteUsage(this.#db)
    return this.#usage
  }

  get operators(): SqliteOperators {
    this.#operators ??= new SqliteOperators(this.#db)
    return this.#operators
  }

  get audit(): SqliteAudit {
    this.#audit ??= new SqliteAudit(this.#db)
    return this.#audit
  }

  get plans(): SqlitePlans {
    this.#plans ??= new SqlitePlans(this.#db)
    return this.#plans
  }

  get customers(): SqliteCustomers {
    this.#customers ??= new SqliteCustomers(this.#db)
    return this.#customers
  }

  /** The rate-limit counters' file: the same database, so one backup holds everything. */
  get counters(): SqliteCounterFile {
    this.#counters ??= new SqliteCounterFile(this.#db)
    return this.#counters
  }

  async migrate(): Promise<number> {
    const applied = await runMigrations(new SqliteMigrations(this.#db), SQLITE_MIGRATIONS)
    await this.customers.adoptKeys()
    return applied
  }

  async ping(): Promise<void> {
    this.#db.prepare('SELECT 1').get()
  }

  async close(): Promise<void> {
    if (this.#reads?.isOpen) this.#reads.close()
    if (this.#db.isOpen) this.#db.close()
  }
}
