import type { Clock } from '../../base/clock.ts'
import { andThen, isPending, type Maybe } from '../../base/maybe.ts'
import type { PageQuery } from '../../domain/pets/service.ts'
import type { PetsVersion, PetsVersionToken } from '../../storage/pets/types.ts'

/** A list page as it goes on the wire: the serialized body and its `Link` header, if any. */
export interface RenderedPage {
  body: string
  link: string | undefined
}

/** `GET /v1/pets` as the route sees it: a query in, a page ready to send out. */
export interface PetPages {
  page(query: PageQuery): Maybe<RenderedPage>
}

interface Entry extends RenderedPage {
  version: PetsVersionToken
  storedAt: number
}

export interface PageCacheOptions {
  maxEntries: number
  /** A page is read again once it is this old, whatever the version says. */
  maxAgeMs?: number
}

/**
 * Rendered pages, reused while the pets' version stands still. A page is the same for every key
 * (rate-limit headers are added per request, outside it), so a busy listing costs one query and
 * one serialization per change of the pets instead of one per request. Bounded, dropping the
 * oldest entry first.
 */
export class CachedPages implements PetPages {
  readonly #inner: PetPages
  readonly #version: PetsVersion
  readonly #clock: Clock
  readonly #maxEntries: number
  readonly #maxAgeMs: number
  readonly #entries = new Map<string, Entry>()

  constructor(inner: PetPages, version: PetsVersion, clock: Clock, { maxEntries, maxAgeMs = Number.POSITIVE_INFINITY }: PageCacheOptions) {
    this.#inner = inner
    this.#version = version
    this.#clock = clock
    this.#maxEntries = maxEntries
    this.#maxAgeMs = maxAgeMs
  }

  page(query: PageQuery): Maybe<RenderedPage> {
    // The raw cursor is part of the key: only a cursor that decoded once has an entry.
    const key = `${query.limit}|${query.status ?? ''}|${query.cursor ?? ''}`
    // The version is read before the page, so a write during the read leaves the page stale at once.
    const version = this.#version.current()
    return isPending(version) ? version.then((settled) => this.#page(query, key, settled)) : this.#page(query, key, version)
  }

  #page(query: PageQuery, key: string, version: PetsVersionToken | undefined): Maybe<RenderedPage> {
    if (version === undefined) return this.#inner.page(query)
    return this.#get(key, version) ?? andThen(this.#inner.page(query), (page) => this.#set(key, version, page))
  }

  #get(key: string, version: PetsVersionToken): RenderedPage | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.version === version && (this.#maxAgeMs === Number.POSITIVE_INFINITY || this.#clock.now() - entry.storedAt < this.#maxAgeMs))
      return entry
    this.#entries.delete(key)
    return undefined
  }

  #set(key: string, version: PetsVersionToken, page: RenderedPage): RenderedPage {
    this.#entries.delete(key)
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(key, { ...page, version, storedAt: this.#clock.now() })
    return page
  }
}
