import type { DatabaseConfig } from '../config.ts'
import type { Storage } from './types.ts'

/**
 * Opens the storage backend DATABASE_URL names. Migrations are the caller's call. Each backend
 * is loaded only when chosen: the embedded default never loads the PostgreSQL driver.
 */
export async function openStorage(database: DatabaseConfig): Promise<Storage> {
  switch (database.kind) {
    case 'sqlite': {
      const { SqliteStorage } = await import('./sqlite/index.ts')
      return new SqliteStorage(database.path)
    }
    case 'postgres': {
      const { PostgresStorage } = await import('./postgres/index.ts')
      return new PostgresStorage(database.url, database.pool)
    }
  }
}
