import type { DatabaseSync, StatementSync } from 'node:sqlite'

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction on `db`, rolled back if it throws. Unlike
 * audit.ts's inTransaction it does not first ask whether SQLite already rolled back: making the
 * two one would change which error such a failure reports.
 */
export function immediateTransaction(db: DatabaseSync, work: () => void): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    work()
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
}

/**
 * One transaction committed at `synchronous=NORMAL` (the rate-limit counters' flush, usage): it
 * survives a crash of the process at once and a power loss with the next fsync of the file, and
 * the event loop, which every request in flight shares, does not wait on the disk. `pragma` is
 * `PRAGMA synchronous` prepared on `db`.
 */
export function withoutFsync(db: DatabaseSync, pragma: StatementSync, work: () => void): void {
  const { synchronous } = pragma.get() as { synchronous: number }
  db.exec('PRAGMA synchronous = NORMAL')
  try {
    immediateTransaction(db, work)
  } finally {
    // The connection is the pet store's too: its creates keep their own setting.
    db.exec(`PRAGMA synchronous = ${synchronous}`)
  }
}
