// Work asked for during one event-loop turn, done once the turn is over, together: one round
// trip (one socket write, one wake-up of the server at the other end) for everything the
// requests that arrived in that turn need, instead of one each.

/**
 * `work` run at most once per event-loop turn, once the turn is over, its result shared by
 * every call made during that turn. `work` must not reject.
 */
export function oncePerTurn<T>(work: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | undefined
  return () =>
    (next ??= new Promise((resolve) => {
      setImmediate(() => {
        next = undefined
        resolve(work())
      })
    }))
}

interface Waiter<A> {
  resolve(answer: A): void
  reject(error: unknown): void
}

/**
 * Items added in one turn are handed to `run` together once the turn is over, in the order
 * they were added, at most `maxItems` per call; each `add` gets the answer at its own index.
 * A failed call fails only the items it was given. An item added while a call is in flight
 * goes into the next one.
 */
export class PerTurnBatch<Q, A> {
  readonly #run: (items: Q[]) => Promise<readonly A[]>
  readonly #maxItems: number
  #items: Q[] = []
  #waiters: Array<Waiter<A>> = []

  constructor(run: (items: Q[]) => Promise<readonly A[]>, maxItems: number) {
    this.#run = run
    this.#maxItems = maxItems
  }

  add(item: Q): Promise<A> {
    return new Promise((resolve, reject) => {
      if (this.#items.length === 0) setImmediate(() => this.#flush())
      this.#items.push(item)
      this.#waiters.push({ resolve, reject })
    })
  }

  #flush(): void {
    const items = this.#items
    const waiters = this.#waiters
    this.#items = []
    this.#waiters = []
    for (let start = 0; start < items.length; start += this.#maxItems) {
      const chunk = items.slice(start, start + this.#maxItems)
      const fail = (error: unknown) => {
        for (let i = 0; i < chunk.length; i++) waiters[start + i]!.reject(error)
      }
      this.#run(chunk).then((answers) => {
        if (answers.length !== chunk.length) return fail(new Error(`a batch of ${chunk.length} got ${answers.length} answers`))
        for (let i = 0; i < chunk.length; i++) waiters[start + i]!.resolve(answers[i]!)
      }, fail)
    }
  }
}

/**
 * Lookups by key asked for in one turn are answered by one read once the turn is over (say
 * `id = ANY(…)`), each distinct key read once. Each lookup is answered as of a moment after it
 * was asked, so it sees everything committed before it arrived.
 */
export class PerTurnLookup<V> {
  readonly #batch: PerTurnBatch<string, V | undefined>

  /** `read` answers the keys it finds (absent ones are missing from its map); at most `maxKeys` per read. */
  constructor(read: (keys: string[]) => Promise<Map<string, V>>, maxKeys: number) {
    this.#batch = new PerTurnBatch(async (keys) => {
      const found = await read([...new Set(keys)])
      return keys.map((key) => found.get(key))
    }, maxKeys)
  }

  get(key: string): Promise<V | undefined> {
    return this.#batch.add(key)
  }
}
