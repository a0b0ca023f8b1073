import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { judgeSchemaVersion } from '../../schema-version.ts'
import type { DatabaseReport } from '../../database-report.ts'
import { SQLITE_MIGRATIONS } from '../migrations/list.ts'

const HEADER_BYTES = 100
const MAGIC = 'SQLite format 3\0'
/** integrity_check stops after this many findings: the first ones name the damage. */
const MAX_FINDINGS = 10

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/**
 * What the file's 100-byte header shows before SQLite reads it: not SQLite at all, or fewer
 * bytes than the header counts. A file with a write-ahead log beside it may be in the middle of a
 * checkpoint, when the header can run ahead of the file's length: SQLite judges it then.
 */
function headerProblems(path: string, size: number): string[] {
  // An empty file is an empty database to SQLite; the missing migrations table says the rest.
  if (size === 0) return []
  if (size < HEADER_BYTES) return [`the file is truncated: ${size} bytes, shorter than SQLite's ${HEADER_BYTES}-byte header`]
  const header = Buffer.alloc(HEADER_BYTES)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, header, 0, HEADER_BYTES, 0)
  } finally {
    closeSync(fd)
  }
  if (header.toString('latin1', 0, MAGIC.length) !== MAGIC) return ['not a SQLite database: the file does not start with "SQLite format 3"']
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return [`the header is damaged: a page size of ${raw} bytes`]
  if (sizeOf(`${path}-wal`) > 0) return []
  if (size % pageSize !== 0) return [`the file is truncated: ${size} bytes is not a whole number of its ${pageSize}-byte pages`]
  // SQLite's own rule: the header's page count holds while its change counter matches "valid for".
  const pages = header.readUInt32BE(28)
  const current = header.readUInt32BE(24) === header.readUInt32BE(92)
  if (current && pages * pageSize > size)
    return [
      `the file is truncated: its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the file holds ${size}`
    ]
  return []
}

/** Each finding of `PRAGMA integrity_check`: ["ok"] when there is none. */
function integrityFindings(db: DatabaseSync): string[] {
  const rows = db.prepare(`PRAGMA integrity_check(${MAX_FINDINGS})`).all()
  // Several findings can share one row, a line each, under a "*** in database main ***" heading.
  return rows.flatMap((row) => String(Object.values(row)[0]).split('\n')).filter((finding) => finding !== '' && !finding.startsWith('***'))
}

function count(db: DatabaseSync, table: 'pets' | 'api_keys'): number {
  return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number | bigint }).n)
}

/** What SQLite itself finds: damage, the schema version against this build's, the counts. */
function sqliteFindings(db: DatabaseSync, report: DatabaseReport): void {
  try {
    const findings = integrityFindings(db)
    if (findings.length !== 1 || findings[0] !== 'ok') report.problems.push(`integrity_check found damage: ${findings.join('; ')}`)
  } catch (error) {
    report.problems.push(`integrity_check could not read it: ${message(error)}`)
  }
  try {
    const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | bigint | null }
    if (row.version === null) report.problems.push('the migrations table (schema_migrations) is empty: the database was never migrated')
    else report.schemaVersion = Number(row.version)
  } catch (error) {
    const missing = /no such table/.test(message(error))
    report.problems.push(
      missing
        ? 'there is no migrations table (schema_migrations): not an animal-store database, or never migrated'
        : `the migrations table (schema_migrations) cannot be read: ${message(error)}`
    )
  }
  if (report.schemaVersion === null) return
  const verdict = judgeSchemaVersion(report.schemaVersion, report.buildSchemaVersion)
  if (verdict.problem !== undefined) report.problems.push(verdict.problem)
  if (verdict.note !== undefined) report.notes.push(verdict.note)
  try {
    report.pets = count(db, 'pets')
    report.keys = count(db, 'api_keys')
  } catch (error) {
    report.problems.push(`the pets and keys cannot be counted: ${message(error)}`)
  }
}

/**
 * Checks the SQLite file at `path` without changing it: opened read-only (on a file in WAL mode,
 * SQLite may add the empty `-wal` and `-shm` files any reader uses), never created, never
 * migrated. A missing file is a problem, not a new database.
 */
export function inspectSqliteFile(path: string): DatabaseReport {
  const report: DatabaseReport = {
    schemaVersion: null,
    buildSchemaVersion: SQLITE_MIGRATIONS.length,
    problems: [],
    notes: [],
    pets: null,
    keys: null
  }
  let size: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) return { ...report, problems: [`${path} is not a file`] }
    size = stat.size
  } catch (error) {
    const missing = (error as { code?: string }).code === 'ENOENT'
    return { ...report, problems: [missing ? `no database file at ${path}` : `cannot read ${path}: ${message(error)}`] }
  }
  report.problems.push(...headerProblems(path, size))
  if (report.problems.some((problem) => problem.startsWith('not a SQLite database'))) return report
  let db: DatabaseSync
  try {
    db = new DatabaseSync(path, { readOnly: true, timeout: 5000 })
  } catch (error) {
    report.problems.push(`SQLite cannot open it: ${message(error)}`)
    return report
  }
  try {
    sqliteFindings(db, report)
  } finally {
    db.close()
  }
  return report
}
