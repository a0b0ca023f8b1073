import pg from 'pg'
import type { PostgresPoolConfig } from '../../config.ts'
import { runMigrations, type Migration, type MigrationTarget } from '../migrations.ts'
import type { AuditStore } from '../audit/types.ts'
import type { OperatorStore } from '../operators/types.ts'
import type { KeyStore } from '../keys/types.ts'
import type { IdempotencyStore } from '../pets/idempotency.ts'
import type { PetStore } from '../pets/types.ts'
import type { PlanStore } from '../plans/types.ts'
import type { CustomerStore } from '../customers/types.ts'
import type { Storage } from '../types.ts'
import type { UsageStore } from '../usage/types.ts'
import { PostgresAudit } from './audit.ts'
import { translateError } from './errors.ts'
import { PostgresIdempotency } from './idempotency.ts'
import { PostgresKeys } from './keys.ts'
import { POSTGRES_MIGRATIONS } from './migrations/list.ts'
import { PostgresOperators } from './operators.ts'
import { PostgresPets } from './pets.ts'
import { PostgresPlans } from './plans.ts'
import { adoptKeys, PostgresCustomers } from './customers.ts'
import { clientConfig, PostgresPool } from './pool.ts'
import { PostgresUsage } from './usage.ts'

/** Advisory-lock namespace ("anmg") for migrations; the schema name's hash is the second key. */
const MIGRATION_LOCK_SPACE = 0x616e6d67
const MIGRATION_LOCK = `${MIGRATION_LOCK_SPACE}, hashtext(current_schema())`

/** Migrations on one connection that holds the migration advisory lock throughout. */
class PostgresMigrations implements MigrationTarget {
  readonly #client: pg.Client

  constructor(client: pg.Client) {
    this.#client = client
  }

  async applied(): Promise<ReadonlySet<number>> {
    const { rows } = await this.#client.query<{ version: number }>('SELECT version FROM schema_migrations')
    return new Set(rows.map((row) => row.version))
  }

  async apply(migration: Migration): Promise<boolean> {
    await this.#client.query('BEGIN')
    try {
      await this.#client.query(migration.sql)
      await this.#client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name])
      await this.#client.query('COMMIT')
      return true
    } catch (error) {
      await this.#client.query('ROLLBACK').catch(() => {})
      throw error
    }
  }
}

/**
 * Scale-out storage: any number of serving processes share one PostgreSQL database (the
 * schema `search_path` names, `public` by default). Connection failures are answered 503 and
 * heal by themselves once the database is back.
 */
export class PostgresStorage implements Storage {
  readonly pets: PetStore
  readonly keys: KeyStore
  readonly idempotency: IdempotencyStore
  readonly usage: UsageStore
  readonly operators: OperatorStore
  readonly audit: AuditStore
  readonly plans: PlanStore
  readonly customers: CustomerStore
  readonly #url: string
  readonly #config: PostgresPoolConfig
  readonly #db: PostgresPool

  constructor(url: string, config: PostgresPoolConfig) {
    this.#url = url
    this.#config = config
    this.#db = new PostgresPool(url, config)
    this.pets = new PostgresPets(this.#db)
    this.keys = new PostgresKeys(this.#db)
    this.idempotency = new PostgresIdempotency(this.#db)
    this.usage = new PostgresUsage(this.#db)
    this.operators = new PostgresOperators(this.#db)
    this.audit = new PostgresAudit(this.#db)
    this.plans = new PostgresPlans(this.#db)
    this.customers = new PostgresCustomers(this.#db)
  }

  async migrate(): Promise<number> {
    // Its own connection, without the pool's statement timeout: a migration may take long, and
    // an instance waiting for another one's migration must wait rather than fail its start-up.
    const client = new pg.Client(clientConfig(this.#url, this.#config))
    // A connection dying between statements fails the next one, which reports it; unheard, the event would crash the process.
    client.on('error', () => {})
    try {
      await client.connect()
      // Several instances starting at once: the first applies, the others wait, then find nothing to do.
      await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`)
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations
        (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
      const applied = await runMigrations(new PostgresMigrations(client), POSTGRES_MIGRATIONS)
      // Under the lock too: keys the previous release made since the last start get their customers.
      await client.query('BEGIN')
      await adoptKeys(client)
      await client.query('COMMIT')
      return applied
    } catch (error) {
      throw translateError(error)
    } finally {
      // Closing the session releases the advisory lock, whatever happened above.
      await client.end().catch(() => {})
    }
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1')
  }

  async close(): Promise<void> {
    await this.#db.end()
  }
}
