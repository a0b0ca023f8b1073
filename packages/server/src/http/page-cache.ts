/** A list page as it goes on the wire: the serialized body and its `Link` header, if any. */
export interface RenderedPage {
  body: string
  link: string | undefined
}

/** What a page was read at: the embedded store's revision, or a shared store's change marker. */
export type Revision = number | string

interface Entry extends RenderedPage {
  revision: Revision
  storedAt: number
}

/**
 * Rendered `GET /v1/pets` pages, reused while the store's revision stands still. A page is
 * the same for every key (rate-limit headers are added per request, outside it), so the
 * first page of a busy listing costs one query and one serialization per change of the
 * store instead of one per request. Bounded, dropping the oldest entry first; with a
 * `maxAgeMs`, a page is also read again once it is that old.
 */
export class PageCache {
  readonly #maxEntries: number
  readonly #maxAgeMs: number
  readonly #entries = new Map<string, Entry>()

  constructor(maxEntries: number, maxAgeMs = Number.POSITIVE_INFINITY) {
    this.#maxEntries = maxEntries
    this.#maxAgeMs = maxAgeMs
  }

  /** The page kept under `key` if it was read at `revision` (the store's current one). */
  get(key: string, revision: Revision): RenderedPage | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.revision === revision && (this.#maxAgeMs === Number.POSITIVE_INFINITY || performance.now() - entry.storedAt < this.#maxAgeMs)) return entry
    this.#entries.delete(key)
    return undefined
  }

  /** Keeps a page read at `revision` (taken before the read, so a write during it makes the page stale at once). */
  set(key: string, revision: Revision, page: RenderedPage): void {
    this.#entries.delete(key)
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(key, { ...page, revision, storedAt: performance.now() })
  }
}
