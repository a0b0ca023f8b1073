import { MINUTE_MS, windowStart } from '../../domain/rate-limits/policy.ts'

interface Failures {
  minuteStart: number
  count: number
}

/**
 * Failed sign-ins to the operator API per client address, in fixed UTC minutes: past `perMinute`
 * failures every request from the address is refused until the minute ends, a correct token
 * included, so guessing tokens is throttled. Kept in this process's memory (operators reach an
 * instance's own listener), for at most `maxAddresses` addresses, the least recently failing
 * forgotten first.
 */
export class SignInLimit {
  readonly #perMinute: number
  readonly #maxAddresses: number
  readonly #failures = new Map<string, Failures>()

  constructor(options: { perMinute?: number; maxAddresses?: number } = {}) {
    this.#perMinute = options.perMinute ?? 20
    this.#maxAddresses = options.maxAddresses ?? 10_000
  }

  /** Whole seconds until the address may try again (at least 1), or 0 when it may now. */
  blockedFor(address: string, now: number): number {
    const failures = this.#failures.get(address)
    if (failures === undefined || failures.minuteStart !== windowStart(now, MINUTE_MS) || failures.count < this.#perMinute) return 0
    return Math.max(1, Math.ceil((failures.minuteStart + MINUTE_MS - now) / 1000))
  }

  /** Counts a failed sign-in from the address. */
  failed(address: string, now: number): void {
    const minuteStart = windowStart(now, MINUTE_MS)
    const failures = this.#failures.get(address)
    const count = failures?.minuteStart === minuteStart ? failures.count + 1 : 1
    // Re-inserted at the end: the map's order is least recently failing first.
    this.#failures.delete(address)
    this.#failures.set(address, { minuteStart, count })
    if (this.#failures.size > this.#maxAddresses) this.#failures.delete(this.#failures.keys().next().value!)
  }
}
