import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { Clock } from '../clock.ts'
import { DAY_MS, windowStart } from '../domain/rate-limit-policy.ts'
import { usageAt, type CounterRow, type MemoryCounterStore } from './memory.ts'
import type { SubjectUsage } from './types.ts'

/** How often counters reach the file: a crash loses at most this much usage (bans are written at once). */
export const FLUSH_INTERVAL_MS = 1000

interface Row {
  subject: string
  minute_start: number
  minute_used: number
  refusals: number
  day_start: number
  day_used: number
  banned_until: number | null
}

const toRow = (r: Row): CounterRow => ({
  subject: r.subject,
  minuteStart: r.minute_start,
  minuteUsed: r.minute_used,
  refusals: r.refusals,
  dayStart: r.day_start,
  dayUsed: r.day_used,
  bannedUntil: r.banned_until
})

/**
 * Keeps the embedded counters in the SQLite file (tables of migration 2), so a restart keeps
 * the day's usage and every ban. Also the mailbox through which `keys unban`, run in another
 * process, reaches the serving one.
 */
export class SqliteCounterPersistence {
  readonly #db: DatabaseSync
  readonly #upsert: StatementSync
  readonly #select: StatementSync
  readonly #synchronous: StatementSync

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#synchronous = db.prepare('PRAGMA synchronous')
    this.#upsert = db.prepare(`INSERT INTO rate_limit_counters (subject, minute_start, minute_used, refusals, day_start, day_used, banned_until)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start, minute_used = excluded.minute_used, refusals = excluded.refusals,
        day_start = excluded.day_start, day_used = excluded.day_used, banned_until = excluded.banned_until`)
    this.#select = db.prepare('SELECT subject, minute_start, minute_used, refusals, day_start, day_used, banned_until FROM rate_limit_counters WHERE subject = ?')
  }

  /**
   * `fsync: true` (bans) returns once the rows survive a power loss. `fsync: false` (the
   * per-second flush) commits at `synchronous=NORMAL`: the rows survive a crash of this
   * process at once and reach the disk with the next fsync of the file (a create or a
   * checkpoint), and the event loop, which every request in flight shares, does not wait on the disk.
   */
  save(rows: CounterRow[], { fsync }: { fsync: boolean }): void {
    if (rows.length === 0) return
    const synchronous = fsync ? undefined : (this.#synchronous.get() as { synchronous: number }).synchronous
    if (synchronous !== undefined) this.#db.exec('PRAGMA synchronous = NORMAL')
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      for (const r of rows) this.#upsert.run(r.subject, r.minuteStart, r.minuteUsed, r.refusals, r.dayStart, r.dayUsed, r.bannedUntil)
      this.#db.exec('COMMIT')
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    } finally {
      // The connection is the pet store's too: its creates keep their own setting.
      if (synchronous !== undefined) this.#db.exec(`PRAGMA synchronous = ${synchronous}`)
    }
  }

  /** Rows still meaningful at `now`: today's usage and unexpired bans. */
  load(now: number): CounterRow[] {
    const rows = this.#db.prepare('SELECT subject, minute_start, minute_used, refusals, day_start, day_used, banned_until FROM rate_limit_counters WHERE day_start >= ? OR banned_until > ?')
      .all(windowStart(now, DAY_MS), now) as unknown as Row[]
    return rows.map(toRow)
  }

  usage(subject: string, now: number): SubjectUsage {
    const row = this.#select.get(subject) as unknown as Row | undefined
    return usageAt(row === undefined ? undefined : toRow(row), now)
  }


  /** From another process: lifts the ban in the file now, and asks a running server to lift it too. */
  requestUnban(subject: string, at: number): void {
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      this.#db.prepare('UPDATE rate_limit_counters SET banned_until = NULL, refusals = 0 WHERE subject = ?').run(subject)
      this.#db.prepare('INSERT INTO rate_limit_unbans (subject, requested_at) VALUES (?, ?)').run(subject, at)
      this.#db.exec('COMMIT')
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    }
  }

  /** Unban requests left by `keys unban`, removed as they are taken. */
  takeUnbanRequests(): string[] {
    const rows = this.#db.prepare('DELETE FROM rate_limit_unbans RETURNING subject').all() as unknown as Array<{ subject: string }>
    return rows.map((r) => r.subject)
  }
}

/**
 * Wires a memory store to the file: restores it, writes bans the moment they change,
 * flushes counters every second, applies unban requests. Returns the function that stops it
 * (flushing one last time).
 */
export function persistCounters(store: MemoryCounterStore, persistence: SqliteCounterPersistence, clock: Clock, onError: (error: unknown) => void): () => void {
  store.restore(persistence.load(clock.now()))
  store.onBanChange = (row) => {
    try {
      persistence.save([row], { fsync: true })
    } catch (error) {
      onError(error)
    }
  }
  const tick = () => {
    try {
      for (const subject of persistence.takeUnbanRequests()) void store.unban(subject)
      persistence.save(store.takeDirty(), { fsync: false })
      store.prune(clock.now())
    } catch (error) {
      onError(error)
    }
  }
  const timer = setInterval(tick, FLUSH_INTERVAL_MS)
  timer.unref()
  return () => {
    clearInterval(timer)
    tick()
    store.onBanChange = undefined
  }
}
