import { statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { backupSqlite } from '../../compose/maintenance.ts'
import { describeDatabase, type Config } from '../../config.ts'
import { parseCommand } from '../parse-command.ts'
import { UsageError } from '../usage-error.ts'

export const BACKUP_HELP = `Usage: animal-store backup <file> [--json]

Writes a consistent copy of the embedded SQLite file (DATABASE_URL=sqlite:...) to <file> while
serve runs and writes (SQLite's online backup), then checks the copy as \`check\` does. The copy
is written under a temporary name beside <file> and takes that name only once it passed. It holds
everything in the file: pets, keys, idempotency records, rate-limit counters (as last flushed,
about every second) and the operator side's tables. An existing <file> is refused. On PostgreSQL,
use pg_dump instead. --json prints one object: path, bytes, schemaVersion, pets, keys.
`

export async function backupCommand(config: Config, argv: string[]): Promise<void> {
  const { json, values } = parseCommand('backup', argv, ['file'])
  if (config.database.kind !== 'sqlite')
    throw new UsageError('backup copies the embedded SQLite file; on PostgreSQL use pg_dump (docs/operations.md, "Backups and restore")')
  const target = resolve(values[0]!)
  const folder = statSync(dirname(target), { throwIfNoEntry: false })
  if (folder?.isDirectory() !== true) throw new UsageError(`backup: the folder ${dirname(target)} does not exist`)
  if (statSync(target, { throwIfNoEntry: false }) !== undefined) throw new UsageError(`backup: ${target} exists: refusing to replace it`)
  const copy = await backupSqlite(config.database.path, target)
  const { schemaVersion, pets, keys } = copy.report
  if (json) {
    process.stdout.write(`${JSON.stringify({ path: copy.path, bytes: copy.bytes, schemaVersion, pets, keys })}\n`)
    return
  }
  process.stdout.write(
    `Copied ${describeDatabase(config.database)} to ${copy.path}: ${copy.bytes} bytes, schema version ${schemaVersion}, ` +
      `${pets} pets, ${keys} keys; the copy passed integrity_check.\n`
  )
}
