import { SchemaTooNewError } from './schema-version.ts'

/** A numbered schema change. The list of a backend is append-only: never edit one that has shipped. */
export interface Migration {
  version: number
  name: string
  sql: string
}

/** One backend's way to apply migrations, under whatever lock keeps concurrent starts apart. */
export interface MigrationTarget {
  /** Versions already applied. */
  applied(): Promise<ReadonlySet<number>>
  /**
   * Applies `migration` and records it in one transaction, unless another process recorded it
   * first; returns whether this call applied it.
   */
  apply(migration: Migration): Promise<boolean>
}

/**
 * Applies the pending migrations of `migrations` in order; returns how many this call applied.
 * A database a newer build migrated (a version past the last of `migrations`) is refused untouched.
 */
export async function runMigrations(target: MigrationTarget, migrations: readonly Migration[]): Promise<number> {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) throw new Error(`migration ${migration.name} is numbered ${migration.version}, expected ${i + 1}`)
  })
  const done = await target.applied()
  const found = Math.max(0, ...done)
  if (found > migrations.length) throw new SchemaTooNewError(found, migrations.length)
  let applied = 0
  for (const migration of migrations) {
    if (!done.has(migration.version) && (await target.apply(migration))) applied++
  }
  return applied
}
