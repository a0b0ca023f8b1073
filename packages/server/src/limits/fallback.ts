import type { MemoryCounterStore } from './memory.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore, SubjectUsage } from './types.ts'
import type { RedisCounterStore } from './redis.ts'

export interface FallbackEvents {
  /** Redis stopped answering: limits are now per instance. Called once per outage. */
  degraded(error: unknown): void
  /** Redis answers again. */
  recovered(): void
}

/**
 * Redis while it answers; this instance's memory while it does not, so the service keeps
 * answering (with per-instance limits) through a Redis outage and returns to Redis by itself.
 */
export class FallbackCounterStore implements CounterStore {
  readonly name = 'redis'
  readonly #primary: RedisCounterStore
  readonly #fallback: MemoryCounterStore
  readonly #events: FallbackEvents
  #degraded = false

  constructor(primary: RedisCounterStore, fallback: MemoryCounterStore, events: FallbackEvents) {
    this.#primary = primary
    this.#fallback = fallback
    this.#events = events
  }

  get degraded(): boolean {
    return this.#degraded
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
      this.#degrade(new Error(`redis is ${this.#primary.redis.status}`))
    }
    return fallback()
  }

  #degrade(error: unknown): void {
    if (this.#degraded) return
    this.#degraded = true
    this.#events.degraded(error)
  }

  consume(request: ConsumeRequest): Promise<ConsumeResult> {
    return this.#run(() => this.#primary.consume(request), async () => this.#fallback.consume(request))
  }

  usage(subject: string, now: number): Promise<SubjectUsage> {
    return this.#run(() => this.#primary.usage(subject, now), () => this.#fallback.usage(subject, now))
  }

  async unban(subject: string): Promise<void> {
    await this.#fallback.unban(subject)
    await this.#primary.unban(subject)
  }

  async close(): Promise<void> {
    await this.#primary.close()
  }
}
