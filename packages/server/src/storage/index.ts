import type { DatabaseConfig } from '../config.ts'
import { PostgresStorage } from './postgres/index.ts'
import { SqliteStorage } from './sqlite/index.ts'
import type { Storage } from './types.ts'

/** Opens the storage backend DATABASE_URL names. Migrations are the caller's call. */
export async function openStorage(database: DatabaseConfig): Promise<Storage> {
  switch (database.kind) {
    case 'sqlite':
      return new SqliteStorage(database.path)
    case 'postgres':
      return new PostgresStorage(database.url, database.pool)
  }
}
