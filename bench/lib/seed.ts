// Fast seeding through the storage layer, never through HTTP: one INSERT ... SELECT per store
// (a recursive CTE in SQLite, generate_series in PostgreSQL), in one transaction.
// Pet i is named pet-i, has categoryId 1 + i % 1000 and cycles through the three statuses,
// so a third of the store matches each status filter.
import { createHash } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import pg from 'pg'
import { NAIVE_SCHEMA } from '../baselines/naive-schema.ts'

const SQLITE_ROWS = `
  WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
  SELECT 'pet-' || i, 1 + i % 1000, CASE i % 3 WHEN 1 THEN 'available' WHEN 2 THEN 'pending' ELSE 'sold' END FROM seq`

function insertSqlite(db: DatabaseSync, pets: number): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    db.prepare(`INSERT INTO pets (name, category_id, status) ${SQLITE_ROWS}`).run(pets)
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
  db.exec('ANALYZE')
}

/** Fills the service's (already migrated) SQLite file with `pets` pets. */
export function seedServiceSqlite(path: string, pets: number): void {
  const db = new DatabaseSync(path, { timeout: 5000 })
  try {
    insertSqlite(db, pets)
  } finally {
    db.close()
  }
}

/** Creates the naive baseline's file: its schema, `pets` pets and the key whose hash it looks up. */
export function seedNaiveSqlite(path: string, pets: number, key: string): void {
  const db = new DatabaseSync(path, { timeout: 5000 })
  try {
    db.exec('PRAGMA journal_mode = WAL')
    db.exec(NAIVE_SCHEMA)
    db.prepare('INSERT INTO api_keys (key_hash, name) VALUES (?, ?)').run(createHash('sha256').update(key).digest('hex'), 'bench')
    insertSqlite(db, pets)
  } finally {
    db.close()
  }
}

/** Deletes the pets a write workload added (ids above `keep`), so every run sees the seeded store. */
export function trimSqlite(path: string, keep: number): void {
  const db = new DatabaseSync(path, { timeout: 10_000 })
  try {
    db.prepare('DELETE FROM pets WHERE id > ?').run(keep)
    db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } finally {
    db.close()
  }
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`

async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** Why PostgreSQL cannot be used at `url`, or undefined when it answers. */
export async function postgresUnavailable(url: string): Promise<string | undefined> {
  try {
    await withPg(url, (client) => client.query('SELECT 1'))
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

export async function createPgSchema(url: string, schema: string): Promise<void> {
  await withPg(url, (client) => client.query(`CREATE SCHEMA ${ident(schema)}`))
}

export async function dropPgSchema(url: string, schema: string): Promise<void> {
  await withPg(url, (client) => client.query(`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`))
}

/** The tables the service created in `schema` (none means it ignored the search_path). */
export async function pgTables(url: string, schema: string): Promise<string[]> {
  return withPg(url, async (client) =>
    (
      await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [
        schema
      ])
    ).rows.map((r) => r.table_name)
  )
}

/**
 * Fills the service's (already migrated) `pets` table in `schema`, whatever types its columns
 * have (a BYTEA name gets the UTF-8 bytes, an enum status a cast).
 */
export async function seedPostgres(url: string, schema: string, pets: number): Promise<void> {
  await withPg(url, async (client) => {
    const columns = await client.query<{ column_name: string; udt_schema: string; udt_name: string }>(
      "SELECT column_name, udt_schema, udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'pets'",
      [schema]
    )
    const typed = (column: string, expression: string) => {
      const type = columns.rows.find((c) => c.column_name === column)
      if (type === undefined) throw new Error(`no ${schema}.pets.${column} column: the PostgreSQL schema is not the one this seeder knows`)
      return type.udt_name === 'bytea'
        ? `convert_to(${expression}, 'UTF8')`
        : `(${expression})::${ident(type.udt_schema)}.${ident(type.udt_name)}`
    }
    await client.query('BEGIN')
    try {
      await client.query(
        `INSERT INTO ${ident(schema)}.pets (name, category_id, status)
        SELECT ${typed('name', "'pet-' || i")}, ${typed('category_id', '1 + i % 1000')},
          ${typed('status', "(ARRAY['sold', 'available', 'pending'])[1 + i % 3]")}
        FROM generate_series(1, $1::bigint) AS i`,
        [pets]
      )
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK')
      throw error
    }
    // Settle the table before anything is measured, as a store in service would be. Left to
    // itself, PostgreSQL spends the next minute or so on a million fresh rows in the background
    // (autovacuum setting hint bits and the visibility map, the checkpointer writing it all out)
    // on the same two cores as the servers, and the bench counted that against every target that
    // ran meanwhile: start-up with 1,000,000 pets was ~150 ms slower than with 1,000, on both stores.
    await client.query(`VACUUM (ANALYZE) ${ident(schema)}.pets`)
    try {
      await client.query('CHECKPOINT')
    } catch {
      // Needs superuser or pg_checkpoint; the next timed checkpoint does the same, only later.
    }
  })
}

export async function trimPostgres(url: string, schema: string, keep: number): Promise<void> {
  await withPg(url, async (client) => {
    await client.query(`DELETE FROM ${ident(schema)}.pets WHERE id > $1`, [keep])
    // The rows this harness deleted are its own mess: cleaned up now, not by autovacuum during the next run.
    await client.query(`VACUUM ${ident(schema)}.pets`)
  })
}
