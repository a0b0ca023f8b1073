import type { Config } from '../config.ts'
import type { DatabaseReport } from '../storage/database-report.ts'

// The database DATABASE_URL names, checked or copied without being opened as a store: nothing
// here migrates, creates or writes it. Each backend's module is loaded only when chosen.

/** Checks the configured database (`animal-store check`). */
export async function checkDatabase(config: Config): Promise<DatabaseReport> {
  if (config.database.kind === 'sqlite') {
    const { inspectSqliteFile } = await import('../storage/sqlite/maintenance/inspect.ts')
    return inspectSqliteFile(config.database.path)
  }
  const { checkPostgres } = await import('../storage/postgres/check.ts')
  return checkPostgres(config.database.url, config.database.pool)
}

/** A consistent, checked copy of the embedded SQLite file at `target` (`animal-store backup`). */
export async function backupSqlite(path: string, target: string): Promise<{ path: string; bytes: number; report: DatabaseReport }> {
  const { backupSqliteFile } = await import('../storage/sqlite/maintenance/backup.ts')
  return backupSqliteFile(path, target)
}
