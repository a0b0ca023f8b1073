import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { backup, DatabaseSync } from 'node:sqlite'
import type { DatabaseReport } from '../../database-report.ts'
import { inspectSqliteFile } from './inspect.ts'

/**
 * Pages per backup step: all of them. SQLite restarts a backup from the first page whenever
 * another connection writes the source between two steps, so in small steps a copy taken while
 * creates stream in may never finish. One step holds one read transaction, which in WAL mode
 * does not hold up the serving process's writes (docs/decisions.md, "Online backups").
 */
const ALL_PAGES = 2 ** 31 - 1

export interface SqliteCopy {
  path: string
  bytes: number
  /** The copy's check. */
  report: DatabaseReport
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * The copy holds the source's WAL flag; switched to a rollback journal it is one file that
 * stands alone: checking it read-only or moving it leaves no `-wal` or `-shm` behind.
 */
function makeStandalone(path: string): void {
  const db = new DatabaseSync(path)
  try {
    db.exec('PRAGMA journal_mode = DELETE')
  } finally {
    db.close()
  }
}

/** Gives `temp` the name `target`, unless a file took that name meanwhile: never replaces one. */
function placeWithoutReplacing(temp: string, target: string): void {
  try {
    linkSync(temp, target)
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'EEXIST') throw new Error(`${target} appeared while the copy was made: refusing to replace it`, { cause: error })
    // A file system without hard links: rename, after one last look.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error
    if (statSync(target, { throwIfNoEntry: false }) !== undefined)
      throw new Error(`${target} exists: refusing to replace it`, { cause: error })
    renameSync(temp, target)
  }
}

/**
 * Copies the SQLite file at `source` into `target` (which must not exist) while a serving
 * process writes it: SQLite's online backup from a read-only connection of this process, as one
 * consistent snapshot. The copy is written under a temporary name in the target's folder,
 * fsynced and checked (integrity, schema version, counts), and only then named `target`;
 * a copy that fails its check is removed and the reasons thrown.
 */
export async function backupSqliteFile(source: string, target: string): Promise<SqliteCopy> {
  const original = statSync(source, { throwIfNoEntry: false })
  if (original === undefined) throw new Error(`no database file at ${source}`)
  const folder = dirname(target)
  const temp = join(folder, `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.partial`)
  try {
    const db = new DatabaseSync(source, { readOnly: true, timeout: 5000 })
    try {
      await backup(db, temp, { rate: ALL_PAGES })
    } finally {
      db.close()
    }
    makeStandalone(temp)
    // Whoever may not read the database may not read its copy either.
    chmodSync(temp, original.mode & 0o777)
    fsyncPath(temp)
    const report = inspectSqliteFile(temp)
    if (report.problems.length > 0) throw new Error(`the copy failed its check, so none was kept: ${report.problems.join('; ')}`)
    placeWithoutReplacing(temp, target)
    rmSync(temp, { force: true })
    fsyncPath(folder)
    return { path: target, bytes: statSync(target).size, report }
  } finally {
    for (const leftover of [temp, `${temp}-journal`, `${temp}-wal`, `${temp}-shm`]) rmSync(leftover, { force: true })
  }
}
