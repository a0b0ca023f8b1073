import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { CounterFile, CounterRow } from '../counter-file-types.ts'
import { immediateTransaction, withoutFsync } from './transaction.ts'

interface Row {
  subject: string
  minute_start: number
  minute_used: number
  refusals: number
  day_start: number
  day_used: number
  month_start: number
  month_used: number
  banned_until: number | null
}

const COLUMNS = 'subject, minute_start, minute_used, refusals, day_start, day_used, month_start, month_used, banned_until'

const toRow = (r: Row): CounterRow => ({
  subject: r.subject,
  minuteStart: r.minute_start,
  minuteUsed: r.minute_used,
  refusals: r.refusals,
  dayStart: r.day_start,
  dayUsed: r.day_used,
  monthStart: r.month_start,
  monthUsed: r.month_used,
  bannedUntil: r.banned_until
})

/**
 * The embedded rate-limit counters in the SQLite file (tables of migration 2). Also the mailbox
 * through which `keys unban`, run in another process, reaches the serving one.
 */
export class SqliteCounterFile implements CounterFile {
  readonly #db: DatabaseSync
  readonly #upsert: StatementSync
  readonly #select: StatementSync
  readonly #delete: StatementSync
  readonly #synchronous: StatementSync

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#synchronous = db.prepare('PRAGMA synchronous')
    this.#upsert = db.prepare(`INSERT INTO rate_limit_counters (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start, minute_used = excluded.minute_used,
        refusals = excluded.refusals, day_start = excluded.day_start, day_used = excluded.day_used,
        month_start = excluded.month_start, month_used = excluded.month_used, banned_until = excluded.banned_until`)
    this.#select = db.prepare(`SELECT ${COLUMNS} FROM rate_limit_counters WHERE subject = ?`)
    this.#delete = db.prepare('DELETE FROM rate_limit_counters WHERE subject = ?')
  }

  /**
   * `fsync: true` (bans) returns once the rows survive a power loss. `fsync: false` (the
   * per-second flush) commits at `synchronous=NORMAL`: the rows survive a crash of this
   * process at once and reach the disk with the next fsync of the file (a create or a
   * checkpoint), and the event loop, which every request in flight shares, does not wait on the disk.
   */
  save(rows: CounterRow[], { fsync, forget = [] }: { fsync: boolean; forget?: string[] }): void {
    if (rows.length === 0 && forget.length === 0) return
    const work = () => {
      for (const subject of forget) this.#delete.run(subject)
      for (const r of rows) {
        this.#upsert.run(
          r.subject,
          r.minuteStart,
          r.minuteUsed,
          r.refusals,
          r.dayStart,
          r.dayUsed,
          r.monthStart,
          r.monthUsed,
          r.bannedUntil
        )
      }
    }
    if (fsync) immediateTransaction(this.#db, work)
    else withoutFsync(this.#db, this.#synchronous, work)
  }

  load(dayStart: number, monthStart: number, now: number): CounterRow[] {
    // Once, at start-up: rows of windows that ended while no server ran. A row of this month's
    // count stays whatever its day: the month outlives the day.
    const kept = 'day_start >= ? OR coalesce(banned_until, 0) > ? OR (month_start >= ? AND month_used > 0)'
    this.#db.prepare(`DELETE FROM rate_limit_counters WHERE NOT (${kept})`).run(dayStart, now, monthStart)
    const rows = this.#db
      .prepare(`SELECT ${COLUMNS} FROM rate_limit_counters WHERE ${kept}`)
      .all(dayStart, now, monthStart) as unknown as Row[]
    return rows.map(toRow)
  }

  find(subject: string): CounterRow | undefined {
    const row = this.#select.get(subject) as unknown as Row | undefined
    return row === undefined ? undefined : toRow(row)
  }

  requestUnban(subject: string, at: number): void {
    immediateTransaction(this.#db, () => {
      this.#db.prepare('UPDATE rate_limit_counters SET banned_until = NULL, refusals = 0 WHERE subject = ?').run(subject)
      this.#db.prepare('INSERT INTO rate_limit_unbans (subject, requested_at) VALUES (?, ?)').run(subject, at)
    })
  }

  takeUnbanRequests(): string[] {
    const rows = this.#db.prepare('DELETE FROM rate_limit_unbans RETURNING subject').all() as unknown as Array<{ subject: string }>
    return rows.map((r) => r.subject)
  }

  bans(prefix: string, now: number): Array<{ subject: string; bannedUntil: number }> {
    const rows = this.#db
      .prepare('SELECT subject, banned_until FROM rate_limit_counters WHERE banned_until > ? AND substr(subject, 1, ?) = ?')
      .all(now, prefix.length, prefix) as unknown as Array<{ subject: string; banned_until: number }>
    return rows.map((r) => ({ subject: r.subject, bannedUntil: r.banned_until }))
  }
}
