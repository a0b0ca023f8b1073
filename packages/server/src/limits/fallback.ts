import { StorageUnavailableError } from '../storage/types.ts'
import { MemoryCounterStore } from './memory/counter-store.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore, FallbackEvents, RemoteCounterStore, SubjectBan, SubjectUsage } from './types.ts'

/**
 * The shared store while it answers; this instance's memory while it does not, so the service
 * keeps answering (with per-instance limits) through an outage and returns to the shared store
 * by itself.
 */
export class FallbackCounterStore implements CounterStore {
  readonly #primary: RemoteCounterStore
  readonly #fallback: MemoryCounterStore
  readonly #events: FallbackEvents
  #degraded = false

  constructor(primary: RemoteCounterStore, events: FallbackEvents, options: { maxAddresses: number }) {
    this.#primary = primary
    this.#events = events
    this.#fallback = new MemoryCounterStore({ maxAddresses: options.maxAddresses })
  }

  /** Running on per-instance counters now. */
  get degraded(): boolean {
    return this.#degraded || !this.#primary.ready
  }

  async #run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (this.#primary.ready) {
      try {
        const result = await primary()
        if (this.#degraded) {
          this.#degraded = false
          this.#events.recovered()
        }
        return result
      } catch (error) {
        this.#degrade(error)
      }
    } else {
      this.#degrade(new Error(`the shared counter store is ${this.#primary.status}`))
    }
    return fallback()
  }

  #degrade(error: unknown): void {
    if (this.#degraded) return
    this.#degraded = true
    this.#events.degraded(error)
  }

  consume(request: ConsumeRequest): Promise<ConsumeResult> {
    return this.#run(
      async () => this.#primary.consume(request),
      async () => this.#fallback.consume(request)
    )
  }

  usage(subject: string, now: number): Promise<SubjectUsage> {
    return this.#run(
      () => this.#primary.usage(subject, now),
      () => this.#fallback.usage(subject, now)
    )
  }

  /** Lifts the ban in the counters in force now, and in the shared store when it answers now (its ban stays otherwise). */
  async unban(subject: string, now: number): Promise<void> {
    await this.#fallback.unban(subject)
    await this.#run(
      () => this.#primary.unban(subject, now),
      async () => {}
    )
  }

  /**
   * The bans of the counters in force now: the shared store's while it is connected (a failure is
   * a 503 to retry, never an empty list), this instance's while it is not.
   */
  async bans(now: number): Promise<SubjectBan[]> {
    if (!this.#primary.ready) return this.#fallback.bans(now)
    try {
      return await this.#primary.bans(now)
    } catch (error) {
      throw new StorageUnavailableError(`the shared counter store did not answer: ${(error as Error).message}`, { cause: error })
    }
  }

  async close(): Promise<void> {
    await this.#primary.close()
  }
}
