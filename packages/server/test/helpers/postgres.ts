import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The PostgreSQL the suites use: trust auth on 127.0.0.1, database `test` (override with TEST_DATABASE_URL). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Runs one statement on a connection of its own (administration: schemas, termination). */
export async function adminQuery<R extends pg.QueryResultRow>(sql: string, values: unknown[] = [], url = TEST_DATABASE_URL): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  client.on('error', () => {})
  try {
    await client.connect()
    return (await client.query<R>(sql, values)).rows
  } finally {
    await client.end().catch(() => {})
  }
}

let reachable: Promise<string | undefined> | undefined

/** Why PostgreSQL cannot be used here, or undefined when it answers and lets us create a schema. */
export function postgresUnavailable(): Promise<string | undefined> {
  reachable ??= adminQuery<{ ok: boolean }>("SELECT has_database_privilege(current_database(), 'CREATE') AS ok").then(
    ([row]) => (row?.ok === true ? undefined : `the user of ${TEST_DATABASE_URL} may not create schemas`),
    (error: Error) =>
      `PostgreSQL at ${TEST_DATABASE_URL} is not reachable (${error.message || (error as { code?: string }).code}); ` +
      'set TEST_DATABASE_URL or start PostgreSQL'
  )
  return reachable
}

/** `url` with every connection's search_path set to `schema`, and named after it in pg_stat_activity. */
export function schemaUrl(schema: string, url = TEST_DATABASE_URL): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c search_path=${schema}`)
  parsed.searchParams.set('application_name', schema)
  return parsed.toString()
}

export interface TestSchema {
  /** A lowercase identifier, also the application_name of every connection made through `url`. */
  name: string
  /** TEST_DATABASE_URL pointed at this schema. */
  url: string
  /** Drops the schema and everything in it. */
  drop(): Promise<void>
}

/** A new empty schema of this test's own: tests share one database, never a table. */
export async function createSchema(): Promise<TestSchema> {
  const name = `animal_store_test_${randomBytes(6).toString('hex')}`
  await adminQuery(`CREATE SCHEMA ${name}`)
  return {
    name,
    url: schemaUrl(name),
    drop: async () => {
      await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
    }
  }
}

/** Closes, from the server side, every connection made through the schema's URL (as a restart would). */
export async function terminateConnections(schema: TestSchema): Promise<number> {
  // Filter first, then terminate: in one WHERE clause the planner may call pg_terminate_backend
  // on every connection of the server before it looks at application_name.
  const rows = await adminQuery<{ pid: number }>(
    `WITH ours AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid())
     SELECT pid FROM ours WHERE pg_terminate_backend(pid)`,
    [schema.name]
  )
  return rows.length
}
