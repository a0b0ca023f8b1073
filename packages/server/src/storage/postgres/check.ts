import pg from 'pg'
import type { PostgresPoolConfig } from '../../config.ts'
import { judgeSchemaVersion } from '../schema-version.ts'
import type { DatabaseReport } from '../database-report.ts'
import { POSTGRES_MIGRATIONS } from './migrations/list.ts'
import { clientConfig } from './pool.ts'

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Reads the schema on a connected client into `report`: migrations table, version, counts. */
async function readSchema(client: pg.Client, report: DatabaseReport): Promise<void> {
  const { rows } = await client.query<{ schema: string | null; migrated: boolean }>(
    "SELECT current_schema() AS schema, to_regclass('schema_migrations') IS NOT NULL AS migrated"
  )
  const { schema, migrated } = rows[0]!
  if (schema === null) {
    report.problems.push('no schema of the search path exists: create it, or name an existing one in DATABASE_URL')
    return
  }
  if (!migrated) {
    report.problems.push(`schema "${schema}" has no migrations table (schema_migrations): never migrated (animal-store migrate)`)
    return
  }
  const version = (await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations')).rows[0]!.version
  if (version === null) {
    report.problems.push(`schema "${schema}": the migrations table is empty, never migrated (animal-store migrate)`)
    return
  }
  report.schemaVersion = version
  const verdict = judgeSchemaVersion(version, report.buildSchemaVersion)
  if (verdict.problem !== undefined) report.problems.push(verdict.problem)
  if (verdict.note !== undefined) report.notes.push(verdict.note)
  // int8 arrives as text on these connections (pool.ts): counts fit a number.
  const counts = await client.query<{ pets: string; keys: string }>(
    'SELECT (SELECT count(*) FROM pets) AS pets, (SELECT count(*) FROM api_keys) AS keys'
  )
  report.pets = Number(counts.rows[0]!.pets)
  report.keys = Number(counts.rows[0]!.keys)
}

/**
 * Checks the PostgreSQL database `url` names without changing it: that it answers, that its
 * schema was migrated, to a version this build can serve, and that pets and keys can be read.
 */
export async function checkPostgres(url: string, pool: PostgresPoolConfig): Promise<DatabaseReport> {
  const report: DatabaseReport = {
    schemaVersion: null,
    buildSchemaVersion: POSTGRES_MIGRATIONS.length,
    problems: [],
    notes: [],
    pets: null,
    keys: null
  }
  const client = new pg.Client({ ...clientConfig(url, pool), statement_timeout: pool.statementTimeoutMs })
  // A connection dying between statements fails the next one, which reports it.
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    report.problems.push(`cannot connect to PostgreSQL: ${message(error)}`)
    return report
  }
  try {
    // Read-only: nothing the check runs can change the database.
    await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY')
    await readSchema(client, report)
  } catch (error) {
    report.problems.push(`the schema cannot be read: ${message(error)}`)
  } finally {
    await client.end().catch(() => {})
  }
  return report
}
