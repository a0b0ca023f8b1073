import type { DatabaseConfig } from '../config.ts'
import { SqliteStorage } from './sqlite/index.ts'
import type { Storage } from './types.ts'

/** Opens the storage backend DATABASE_URL names. Migrations are the caller's call. */
export async function openStorage(database: DatabaseConfig): Promise<Storage> {
  switch (database.kind) {
    case 'sqlite':
      return new SqliteStorage(database.path)
    case 'postgres':
      throw new Error('PostgreSQL storage is not available in this build')
  }
}
