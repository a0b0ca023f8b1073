/** Every time-dependent rule (windows, bans, sunset, expiry) reads time from a Clock, so tests can move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that stands still until moved: for tests and benchmarks. */
export class ManualClock implements Clock {
  #now: number
  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === 'number' ? start : start.getTime()
  }

  now(): number {
    return this.#now
  }

  set(at: number | Date): void {
    this.#now = typeof at === 'number' ? at : at.getTime()
  }

  advance(ms: number): void {
    this.#now += ms
  }
}
