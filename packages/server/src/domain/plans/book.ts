import type { Limits } from '@animal-store/contract'
import type { Maybe } from '../../base/maybe.ts'
import type { PlanRecord, PlanStore } from '../../storage/plans/types.ts'

/** How often a serving process reads the plans again: a change on another instance is in force within this (and 5 s). */
const PLAN_REFRESH_MS = 2000

/** A plan the book does not know even after reading the plans again: the key names a plan that is gone. */
class UnknownPlanError extends Error {
  override name = 'UnknownPlanError'
  constructor(id: string) {
    super(`the key's plan ${JSON.stringify(id)} is not in the plans table`)
  }
}

/** What a key contributes to its limits (its customer's): its plan, and its own numbers and monthly quota where it has them. */
type KeyLimitsSource = { plan: string; perMinute: number | null; perDay: number | null; perMonth: number | null }

/**
 * The plans' limits held in memory, so the hot path finds a key's limits with one map lookup;
 * read again from the store every PLAN_REFRESH_MS, at once after this process changes a plan,
 * and when a key names a plan not seen yet (made on another instance since the last read).
 */
export class PlanBook {
  readonly #store: Pick<PlanStore, 'list'>
  #limits = new Map<string, Limits | null>()
  #reading: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(store: Pick<PlanStore, 'list'>) {
    this.#store = store
  }

  /** Reads the plans (once for every caller meanwhile); the book keeps what it had when the read fails. */
  refresh(): Promise<void> {
    this.#reading ??= this.#store
      .list()
      .then((plans) => this.#replace(plans))
      .finally(() => (this.#reading = undefined))
    return this.#reading
  }

  /**
   * Reads the plans now, then every PLAN_REFRESH_MS until `stop`; failures are reported to
   * `failed` and the plans read last are kept. A process whose database is down at start serves
   * anyway: a key's request then reads the plans itself, and fails as the database does (503).
   */
  async start(failed: (error: unknown) => void): Promise<void> {
    await this.refresh().catch(failed)
    this.#timer = setInterval(() => void this.refresh().catch(failed), PLAN_REFRESH_MS)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  /**
   * The limits `key` runs under: its own numbers where it has them, else its plan's. The monthly
   * quota goes with the numbers: with any number of its own, its own quota (null: none), else
   * its plan's. Synchronous when the plan is known; otherwise after reading the plans again.
   */
  limitsOf(key: KeyLimitsSource): Maybe<Limits> {
    const known = this.#limitsIfKnown(key)
    if (known !== undefined) return known
    return this.refresh().then(() => this.#limitsIfKnown(key) ?? Promise.reject(new UnknownPlanError(key.plan)))
  }

  #limitsIfKnown(key: KeyLimitsSource): Limits | undefined {
    const plan = this.#limits.get(key.plan)
    if (plan === undefined && !this.#limits.has(key.plan)) return undefined
    if (key.perMinute === null && key.perDay === null && plan !== null && plan !== undefined) return plan
    const perMinute = key.perMinute ?? plan?.perMinute
    const perDay = key.perDay ?? plan?.perDay
    // A custom plan's key always has both (the key and plan services see to it).
    if (perMinute === undefined || perDay === undefined) throw new Error(`a key on the custom plan ${key.plan} has no limits of its own`)
    return { perMinute, perDay, perMonth: key.perMonth }
  }

  #replace(plans: readonly PlanRecord[]): void {
    const next = new Map<string, Limits | null>()
    for (const plan of plans) {
      const previous = this.#limits.get(plan.id)
      const same = previous?.perMinute === plan.perMinute && previous?.perDay === plan.perDay && previous?.perMonth === plan.perMonth
      // Unchanged plans keep their object: the rate-limit policy text is spelled once per set of limits.
      const { perMinute, perDay, perMonth } = plan
      next.set(plan.id, perMinute === null || perDay === null ? null : same ? previous : { perMinute, perDay, perMonth })
    }
    this.#limits = next
  }
}
