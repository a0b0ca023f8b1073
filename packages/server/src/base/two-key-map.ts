/**
 * Values by a pair of keys, kept in nested maps: a lookup by keys the caller already holds
 * builds no combined string, which matters where it runs on every request.
 */
export class TwoKeyMap<A, B, V> {
  readonly #outer = new Map<A, Map<B, V>>()

  /** The value at (a, b); made by `make(a, b)` and kept the first time it is asked for. */
  getOrAdd(a: A, b: B, make: (a: A, b: B) => V): V {
    let inner = this.#outer.get(a)
    if (inner === undefined) {
      inner = new Map()
      this.#outer.set(a, inner)
    }
    let value = inner.get(b)
    if (value === undefined) {
      value = make(a, b)
      inner.set(b, value)
    }
    return value
  }

  *entries(): IterableIterator<[A, B, V]> {
    for (const [a, inner] of this.#outer) for (const [b, value] of inner) yield [a, b, value]
  }
}
