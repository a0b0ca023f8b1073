import pg, { type ClientConfig, type PoolClient, type QueryResultRow } from 'pg'
import type { PostgresPoolConfig } from '../../config.ts'
import { translateError } from './errors.ts'

const INT8_OID = 20

/**
 * int8 (BIGINT, and count(*)) arrives as its decimal text, for this pool only: a global
 * `pg.types.setTypeParser(20, parseInt)` elsewhere in the process must not round our ids.
 * Callers turn the text into an Int64 with `toInt64(BigInt(text))`.
 */
function int8AsText(): pg.TypeOverrides {
  const types = new pg.TypeOverrides()
  types.setTypeParser(INT8_OID, (text: string) => text)
  return types
}

/** The server's statement timeout normally fires first; this catches a connection that went silent. */
const CLIENT_READ_MARGIN_MS = 2000

/** Connection options shared by the pool and the migration connection. */
export function clientConfig(url: string, pool: PostgresPoolConfig): ClientConfig {
  return {
    connectionString: url,
    // The URL's own application_name, if any, wins: tests use it to find their connections.
    application_name: 'animal-store',
    connectionTimeoutMillis: pool.connectTimeoutMs,
    keepAlive: true,
    types: int8AsText()
  }
}

/**
 * A pg pool whose every failure to reach the server becomes StorageUnavailableError, and
 * which heals by itself: a broken connection is dropped and the next query opens a new one.
 */
export class PostgresPool {
  readonly #pool: pg.Pool
  #ended = false

  constructor(url: string, config: PostgresPoolConfig) {
    this.#pool = new pg.Pool({
      ...clientConfig(url, config),
      max: config.size,
      // A connection once opened is kept (pg-pool closes idle ones after 10 s by default): a
      // burst after a quiet spell would otherwise wait for up to `size` new backends to start,
      // sign in and prepare their statements again. A broken one is still dropped and replaced.
      min: config.size,
      statement_timeout: config.statementTimeoutMs,
      // A transaction stalled in this process must not hold the pet-id lock for every instance.
      idle_in_transaction_session_timeout: config.statementTimeoutMs,
      query_timeout: config.statementTimeoutMs + CLIENT_READ_MARGIN_MS
    })
    // An idle connection that dies (server restart, pg_terminate_backend, network) is already
    // discarded by the pool; without a listener the 'error' event would crash the process.
    this.#pool.on('error', () => {})
  }

  /**
   * `prepareAs` names a server-side prepared statement: each connection parses and plans it
   * once, and later runs send only its parameters. For the statements on every request; they
   * name their columns, so a migration that adds columns leaves them valid (one that changes a
   * column's type needs the instances restarted).
   */
  async query<R extends QueryResultRow>(text: string, values: unknown[] = [], prepareAs?: string): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(prepareAs === undefined ? { text, values } : { name: prepareAs, text, values })).rows
    } catch (error) {
      throw translateError(error)
    }
  }

  /** Runs `work` in one transaction on one connection; rolls back (by dropping the connection) on any error. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      throw translateError(error)
    }
    // A checked-out client has no pool listener; a connection dying between two of our
    // statements would otherwise be an unhandled 'error' event. The failing query reports it.
    const ignore = () => {}
    client.on('error', ignore)
    let failure: Error | undefined
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      // Destroying the connection rolls the transaction back without another round trip.
      failure = error instanceof Error ? error : new Error(String(error))
      throw translateError(error)
    } finally {
      client.off('error', ignore)
      client.release(failure)
    }
  }

  async end(): Promise<void> {
    if (this.#ended) return
    this.#ended = true
    await this.#pool.end()
  }
}
