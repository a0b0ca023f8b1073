interface Waiter<V> {
  resolve(value: V | undefined): void
  reject(error: unknown): void
}

/**
 * Lookups by key asked for in one event-loop turn are answered by one read at the end of the
 * turn (`id = ANY(…)`), not one read each: one round trip, one socket write and one wake-up of
 * a database backend for the whole turn. Each lookup is answered as of a moment after it was
 * asked, so it sees everything committed before it arrived.
 */
export class PerTurnLookup<V> {
  readonly #read: (keys: string[]) => Promise<Map<string, V>>
  readonly #maxKeys: number
  #waiting = new Map<string, Array<Waiter<V>>>()

  /** `read` answers the keys it finds (absent ones are missing from its map); at most `maxKeys` per read. */
  constructor(read: (keys: string[]) => Promise<Map<string, V>>, maxKeys: number) {
    this.#read = read
    this.#maxKeys = maxKeys
  }

  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) setImmediate(() => this.#flush())
      const waiters = this.#waiting.get(key)
      if (waiters === undefined) this.#waiting.set(key, [{ resolve, reject }])
      else waiters.push({ resolve, reject })
    })
  }

  #flush(): void {
    const waiting = this.#waiting
    this.#waiting = new Map()
    const keys = [...waiting.keys()]
    for (let start = 0; start < keys.length; start += this.#maxKeys) {
      const chunk = keys.slice(start, start + this.#maxKeys)
      this.#read(chunk).then(
        (found) => {
          for (const key of chunk) for (const waiter of waiting.get(key)!) waiter.resolve(found.get(key))
        },
        (error: unknown) => {
          for (const key of chunk) for (const waiter of waiting.get(key)!) waiter.reject(error)
        }
      )
    }
  }
}
