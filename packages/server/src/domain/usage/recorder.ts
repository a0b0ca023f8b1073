import type { UsageCounts, UsageDelta, UsageStore } from '../../storage/usage/types.ts'

/** What a request that named a valid key came to. */
export type UsageOutcome = keyof UsageCounts

/** Told of every request that names a valid key, once its rate-limit verdict is known. */
export interface UsageRecorder {
  /** Counts one request of the key in the UTC minute holding `now`; synchronous and in memory. */
  count(keyId: string, outcome: UsageOutcome, now: number): void
}

const MINUTE_MS = 60_000

const isEmpty = (counts: UsageCounts) => counts.allowed + counts.rateLimited + counts.banned + counts.quotaExceeded === 0

/**
 * Counts in memory and sends them to the store on `flush`: each flush ADDS what this instance
 * counted since the last one, so instances sharing a database never overwrite one another. A
 * flush that fails keeps its deltas for the next; a crash loses what was not flushed yet.
 */
export class UsageBuffer implements UsageRecorder {
  readonly #store: Pick<UsageStore, 'add'>
  readonly #failed: (error: unknown, deltas: number) => void
  /** Each counted key's latest minute: one object per key, reused from minute to minute, so counting allocates nothing. */
  readonly #cells = new Map<string, UsageDelta>()
  /** Counts no cell holds any more (an earlier minute, or a failed flush), merged by key and minute. */
  readonly #pending = new Map<string, UsageDelta>()
  #inFlight: Promise<void> | undefined
  #queued: Promise<void> | undefined

  constructor(store: Pick<UsageStore, 'add'>, options: { failed: (error: unknown, deltas: number) => void }) {
    this.#store = store
    this.#failed = options.failed
  }

  count(keyId: string, outcome: UsageOutcome, now: number): void {
    // The common case, the key's minute still running, costs a map lookup, two comparisons and an increment.
    let cell = this.#cells.get(keyId)
    if (cell === undefined || now - cell.minuteStart >= MINUTE_MS || now < cell.minuteStart) cell = this.#cellAt(keyId, now, cell)
    // Branches, not `cell[outcome]++`, whose varying key leaves V8 a generic keyed store; allowed, the commonest, comes first.
    if (outcome === 'allowed') cell.allowed++
    else if (outcome === 'rateLimited') cell.rateLimited++
    else if (outcome === 'banned') cell.banned++
    else cell.quotaExceeded++
  }

  /**
   * Sends every count made before the call; never rejects (a failure is reported and its deltas
   * kept). One flush at a time: a call made while one runs waits for it, then sends what came
   * since, together with every other call made meanwhile.
   */
  flush(): Promise<void> {
    if (this.#queued !== undefined) return this.#queued
    if (this.#inFlight === undefined) return this.#start()
    const queued = this.#inFlight.then(() => {
      this.#queued = undefined
      return this.#start()
    })
    this.#queued = queued
    return queued
  }

  #start(): Promise<void> {
    const sending = this.#send().finally(() => {
      if (this.#inFlight === sending) this.#inFlight = undefined
    })
    this.#inFlight = sending
    return sending
  }

  async #send(): Promise<void> {
    const deltas = this.#take()
    if (deltas.length === 0) return
    try {
      await this.#store.add(deltas)
    } catch (error) {
      for (const delta of deltas) this.#merge(delta)
      this.#failed(error, deltas.length)
    }
  }

  /** Everything counted so far, as deltas; cells idle since the last flush are dropped, so memory follows the keys in use. */
  #take(): UsageDelta[] {
    const deltas = [...this.#pending.values()]
    this.#pending.clear()
    for (const cell of this.#cells.values()) {
      if (isEmpty(cell)) {
        this.#cells.delete(cell.keyId)
        continue
      }
      deltas.push({ ...cell })
      cell.allowed = cell.rateLimited = cell.banned = cell.quotaExceeded = 0
    }
    return deltas
  }

  /** The key's cell for the minute holding `now`: a new one, or its cell moved on, what it held left for the next flush. */
  #cellAt(keyId: string, now: number, cell: UsageDelta | undefined): UsageDelta {
    const minuteStart = now - (now % MINUTE_MS)
    if (cell === undefined) {
      const created = { keyId, minuteStart, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 }
      this.#cells.set(keyId, created)
      return created
    }
    if (!isEmpty(cell)) this.#merge({ ...cell })
    cell.minuteStart = minuteStart
    cell.allowed = cell.rateLimited = cell.banned = cell.quotaExceeded = 0
    return cell
  }

  #merge(delta: UsageDelta): void {
    const id = `${delta.minuteStart} ${delta.keyId}`
    const held = this.#pending.get(id)
    if (held === undefined) {
      this.#pending.set(id, delta)
      return
    }
    held.allowed += delta.allowed
    held.rateLimited += delta.rateLimited
    held.banned += delta.banned
    held.quotaExceeded += delta.quotaExceeded
  }
}
