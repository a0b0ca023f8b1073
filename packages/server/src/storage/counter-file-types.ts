/** One subject's rate-limit counters, as the embedded store keeps them in memory and on disk. */
export interface CounterRow {
  subject: string
  minuteStart: number
  minuteUsed: number
  /** Refusals counted in the window that starts at `minuteStart`. */
  refusals: number
  dayStart: number
  dayUsed: number
  /** The calendar month counted (its first millisecond), 0 when none is: only customers with a monthly quota count one. */
  monthStart: number
  monthUsed: number
  bannedUntil: number | null
}

/** Where the embedded store keeps its counters, so a restart keeps the day's usage and every ban. */
export interface CounterFile {
  /** Rows still meaningful at `now`: usage of the day and the month that start at `dayStart` and `monthStart`, and unexpired bans; deletes the rest. */
  load(dayStart: number, monthStart: number, now: number): CounterRow[]
  /** The row of `subject`, if any. */
  find(subject: string): CounterRow | undefined
  /** In one transaction deletes the rows of `forget`, then upserts `rows`; with `fsync`, returns once they survive a power loss. */
  save(rows: CounterRow[], options: { fsync: boolean; forget?: string[] }): void
  /** From any process: lifts the ban in the file and leaves a request for the serving process. */
  requestUnban(subject: string, at: number): void
  /** Unban requests left since the last call, removed as they are taken. */
  takeUnbanRequests(): string[]
  /** The subjects starting with `prefix` whose ban lasts past `now`, as last saved. */
  bans(prefix: string, now: number): Array<{ subject: string; bannedUntil: number }>
}
