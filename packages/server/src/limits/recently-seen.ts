interface Entry<V> {
  key: string
  value: V
  older: Entry<V> | undefined
  newer: Entry<V> | undefined
}

/**
 * Values by key in least-recently-seen order, every operation O(1): a Map for the lookup and a
 * doubly linked list for the order. (A Map's own insertion order is not enough: V8 leaves a
 * hole for each deleted entry until the table is rebuilt, and finding the first live entry
 * walks over every hole in front of it, which under a flood of new addresses is most of them.)
 */
export class RecentlySeen<V> {
  readonly #entries = new Map<string, Entry<V>>()
  #oldest: Entry<V> | undefined
  #newest: Entry<V> | undefined

  get size(): number {
    return this.#entries.size
  }

  /** The value, without counting this as a sighting. */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value
  }

  /** The value, now the most recently seen. */
  see(key: string): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry !== this.#newest) {
      this.#unlink(entry)
      this.#append(entry)
    }
    return entry.value
  }

  /** Adds a key not present, as the most recently seen. */
  add(key: string, value: V): void {
    const entry: Entry<V> = { key, value, older: undefined, newer: undefined }
    this.#entries.set(key, entry)
    this.#append(entry)
  }

  /**
   * Gives the least recently seen entry a new key and makes it the most recently seen; returns
   * its value for the caller to reuse. A full table under a flood of new keys then allocates
   * nothing long-lived per key, which keeps V8's old generation from growing with the churn.
   */
  recycleOldest(key: string): V {
    const entry = this.#oldest!
    this.#entries.delete(entry.key)
    entry.key = key
    this.#entries.set(key, entry)
    if (entry !== this.#newest) {
      this.#unlink(entry)
      this.#append(entry)
    }
    return entry.value
  }

  /** The least recently seen key and value. */
  oldest(): { key: string; value: V } | undefined {
    return this.#oldest
  }

  delete(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    this.#entries.delete(key)
    this.#unlink(entry)
  }

  #append(entry: Entry<V>): void {
    entry.older = this.#newest
    entry.newer = undefined
    if (this.#newest === undefined) this.#oldest = entry
    else this.#newest.newer = entry
    this.#newest = entry
  }

  #unlink(entry: Entry<V>): void {
    if (entry.older === undefined) this.#oldest = entry.newer
    else entry.older.newer = entry.newer
    if (entry.newer === undefined) this.#newest = entry.older
    else entry.newer.older = entry.older
  }
}
