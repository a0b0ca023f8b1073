/** A list page as it goes on the wire: the serialized body and its `Link` header, if any. */
export interface RenderedPage {
  body: string
  link: string | undefined
}

interface Entry extends RenderedPage {
  revision: number
}

/**
 * Rendered `GET /v1/pets` pages, reused while the store's revision stands still. A page is
 * the same for every key (rate-limit headers are added per request, outside it), so the
 * first page of a busy listing costs one query and one serialization per change of the
 * store instead of one per request. Only for stores this process alone writes (their
 * `revision()`); bounded, dropping the oldest entry first.
 */
export class PageCache {
  readonly #revision: () => number
  readonly #maxEntries: number
  readonly #entries = new Map<string, Entry>()

  constructor(revision: () => number, maxEntries: number) {
    this.#revision = revision
    this.#maxEntries = maxEntries
  }

  /** The revision to pass to `set` for a page read from now on. */
  revision(): number {
    return this.#revision()
  }

  get(key: string): RenderedPage | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.revision === this.#revision()) return entry
    this.#entries.delete(key)
    return undefined
  }

  /** Keeps a page read at `revision` (taken before the read, so a write during it makes the page stale at once). */
  set(key: string, revision: number, page: RenderedPage): void {
    this.#entries.delete(key)
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(key, { ...page, revision })
  }
}
