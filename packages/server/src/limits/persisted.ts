import type { Clock } from '../base/clock.ts'
import { DAY_MS, windowStart } from '../domain/rate-limits/policy.ts'
import { monthAt } from '../domain/rate-limits/month.ts'
import type { CounterFile } from '../storage/counter-file-types.ts'
import { setImmediate } from 'node:timers/promises'
import { MemoryCounterStore } from './memory/counter-store.ts'
import { usageAt } from './memory/row-windows.ts'
import type { CounterChanges } from './memory/row-table.ts'
import {
  KEY_PREFIX,
  type ConsumeRequest,
  type ConsumeResult,
  type CounterReader,
  type CounterStore,
  type SubjectBan,
  type SubjectUsage
} from './types.ts'

/** How often counters reach the file: a crash loses at most this much usage (bans are written at once). */
const FLUSH_INTERVAL_MS = 1000
/**
 * Rows per transaction of a flush. A flood of new addresses changes ~20,000 rows a second:
 * written at once, that held the event loop for 70 to 300 ms on a loaded 2-core machine; in
 * chunks, a keyed request waits at most one chunk's write.
 */
const WRITE_CHUNK = 500

/**
 * The embedded default's counters: in this process's memory (one atomic step per request, no
 * promise), written to the file every second and at close, a ban the moment it starts. Rows
 * forgotten in memory (an address past the cap, a window that has ended) are deleted from the
 * file in the same write, so the file stays as bounded as memory. A
 * restart keeps the day's and the month's usage and every ban. Unban requests that `keys unban` leaves in the
 * file from another process are applied within a second.
 */
export class PersistedCounterStore implements CounterStore {
  readonly #memory: MemoryCounterStore
  readonly #openFile: () => CounterFile
  #file: CounterFile | undefined
  readonly #clock: Clock
  readonly #onError: (error: unknown) => void
  #timer: NodeJS.Timeout | undefined
  #writing: Promise<void> | undefined

  /** The file is opened on first use, once the serving process has applied its migrations. */
  constructor(openFile: () => CounterFile, clock: Clock, options: { maxAddresses: number; onError: (error: unknown) => void }) {
    this.#openFile = openFile
    this.#clock = clock
    this.#onError = options.onError
    this.#memory = new MemoryCounterStore({
      maxAddresses: options.maxAddresses,
      trackChanges: true,
      onBanChange: (row) => this.#guard(() => this.#file?.save([row], { fsync: true }))
    })
  }

  /** The counters, restored from the file and flushed to it every second from the first use on. */
  #counters(): MemoryCounterStore {
    if (this.#file === undefined) {
      this.#file = this.#openFile()
      const now = this.#clock.now()
      this.#memory.restore(this.#file.load(windowStart(now, DAY_MS), monthAt(now).start, now))
      this.#timer = setInterval(() => this.#tick(), FLUSH_INTERVAL_MS)
      this.#timer.unref()
    }
    return this.#memory
  }

  consume(request: ConsumeRequest): ConsumeResult {
    return this.#counters().consume(request)
  }

  usage(subject: string, now: number): Promise<SubjectUsage> {
    return this.#counters().usage(subject, now)
  }

  unban(subject: string): Promise<void> {
    return this.#counters().unban(subject)
  }

  bans(now: number): Promise<SubjectBan[]> {
    return this.#counters().bans(now)
  }

  async close(): Promise<void> {
    if (this.#timer === undefined) return
    clearInterval(this.#timer)
    await this.#writing
    this.#tick(Number.POSITIVE_INFINITY)
    await this.#writing
  }

  /** `chunk`: rows per write; each write is one transaction, and other requests run between two. */
  #tick(chunk = WRITE_CHUNK): void {
    const file = this.#file
    // A flood's changes may take longer than a tick to write: the next tick takes what is left then.
    if (file === undefined || this.#writing !== undefined) return
    this.#guard(() => {
      for (const subject of file.takeUnbanRequests()) void this.#memory.unban(subject)
      this.#memory.prune(this.#clock.now())
      // The file holds what memory holds: forgotten addresses and ended windows leave it too.
      const changes = this.#memory.takeChanges()
      if (changes.rows.length === 0 && changes.forgotten.length === 0) return
      this.#writing = this.#write(file, changes, chunk).finally(() => (this.#writing = undefined))
    })
  }

  /** Every delete before any write: a subject forgotten and seen again since the last flush keeps its new row. */
  async #write(file: CounterFile, { rows, forgotten }: CounterChanges, chunk: number): Promise<void> {
    const deletes = forgotten.length
    for (let at = 0; at < deletes + rows.length; at += chunk) {
      if (at > 0) await setImmediate()
      const forget = forgotten.slice(at, at + chunk)
      const write = rows.slice(Math.max(0, at - deletes), Math.max(0, at + chunk - deletes))
      this.#guard(() => file.save(write, { fsync: false, forget }))
    }
  }

  #guard(work: () => void): void {
    try {
      work()
    } catch (error) {
      this.#onError(error)
    }
  }
}

/**
 * The counters as another process sees them in the file (`keys list`, `keys unban` while a
 * server runs): usage as of the server's last flush, and unbans left for it to apply.
 */
export class CounterFileReader implements CounterReader {
  readonly #file: CounterFile

  constructor(file: CounterFile) {
    this.#file = file
  }

  async usage(subject: string, now: number): Promise<SubjectUsage> {
    return usageAt(this.#file.find(subject), now)
  }

  async unban(subject: string, now: number): Promise<void> {
    this.#file.requestUnban(subject, now)
  }

  async bans(now: number): Promise<SubjectBan[]> {
    return this.#file.bans(KEY_PREFIX, now)
  }

  async close(): Promise<void> {}
}
