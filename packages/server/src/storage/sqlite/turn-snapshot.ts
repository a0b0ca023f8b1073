import type { DatabaseSync, StatementSync } from 'node:sqlite'

/**
 * The pet reads of one event-loop turn share one read transaction, on a connection of their
 * own. In WAL mode a statement outside a transaction opens and closes its own, and each one
 * takes and drops a read lock on the `-shm` file (two `fcntl` calls): most of the cost of a
 * get by id. One transaction per turn pays that once for all the turn's reads.
 *
 * What a read may miss: every write of this process ends the snapshot first (`end()`), so a
 * read sees every pet this process committed before it. A commit by another program (the
 * store is this process's alone; DESIGN §4) is seen from the next turn on.
 */
export class TurnSnapshot {
  readonly #db: DatabaseSync
  readonly #begin: StatementSync
  readonly #commit: StatementSync

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#begin = db.prepare('BEGIN')
    this.#commit = db.prepare('COMMIT')
  }

  /** Call before each read on the snapshot's connection. */
  enter(): void {
    if (this.#db.isTransaction) return
    this.#begin.run()
    // Once the turn is over, so the file's checkpoints and outside commits are not held back.
    setImmediate(this.end)
  }

  readonly end = (): void => {
    if (this.#db.isOpen && this.#db.isTransaction) this.#commit.run()
  }
}
