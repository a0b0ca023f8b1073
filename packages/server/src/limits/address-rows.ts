import { randomInt } from 'node:crypto'
import type { CounterRow } from '../storage/types.ts'
import { SlotView, STRIDE, type HeldRow } from './slot-view.ts'
import { latin1, RecordLog, SlotList, type Batch } from './typed-lists.ts'

/** Longest subject held, in latin1 characters: `ip:` and a full IPv6 text with its prefix length fit. */
export const SUBJECT_CHARS = 64
const NONE = -1
const FIRST_CAPACITY = 1024
// eslint-disable-next-line no-control-regex -- the range is the point: one byte per character
const LATIN1 = /^[\u0000-\u00ff]*$/

/**
 * The counter rows of client addresses, in typed arrays: subjects in fixed-size slots, a
 * seeded hash index over them, the least-recently-seen order as slot links, and the counts
 * as numbers. Every operation is O(1) and, once the table has grown to its cap, allocates
 * nothing a request leaves behind: a flood of new addresses recycles slots instead of
 * creating strings, map entries and row objects that V8 would promote and keep until its next
 * full collection (RSS grew with the flood although the live heap did not).
 */
export class AddressRows {
  readonly #max: number
  readonly #seed = randomInt(2 ** 32) | 0
  #capacity = 0
  #size = 0
  #chars = new Uint8Array(0)
  #lengths = new Uint8Array(0)
  #hashes = new Int32Array(0)
  #next = new Int32Array(0)
  #older = new Int32Array(0)
  #newer = new Int32Array(0)
  #dirty = new Uint8Array(0)
  #buckets = new Int32Array(0)
  #free = NONE
  #oldest = NONE
  #newest = NONE
  /** Slots changed since the last `takeChanges`, and subjects forgotten: filled while the other pair is written. */
  #changed = new SlotList()
  #forgotten = new RecordLog(SUBJECT_CHARS)
  #taken = { changed: new SlotList(), forgotten: new RecordLog(SUBJECT_CHARS) }
  /** Each slot's counts, `STRIDE` numbers apart; replaced when the table grows. */
  numbers = new Float64Array(0)
  readonly #view = new SlotView(this)

  readonly #trackChanges: boolean

  /** `trackChanges`: record changed rows and forgotten subjects for `takeChanges`. */
  constructor(max: number, options: { trackChanges: boolean }) {
    this.#max = max
    this.#trackChanges = options.trackChanges
  }

  get size(): number {
    return this.#size
  }

  /** The least recently seen slot, or -1. */
  get oldest(): number {
    return this.#oldest
  }

  /** The subject's slot, or -1; without counting this as a sighting. */
  find(subject: string): number {
    const hash = this.#hash(subject)
    for (let slot = this.#buckets[hash & (this.#buckets.length - 1)] ?? NONE; slot !== NONE; slot = this.#next[slot]!) {
      if (this.#hashes[slot] === hash && this.#holds(slot, subject)) return slot
    }
    return NONE
  }

  /** The subject's slot, now the most recently seen; or -1. */
  see(subject: string): number {
    const slot = this.find(subject)
    if (slot !== NONE && slot !== this.#newest) {
      this.#unlink(slot)
      this.#append(slot)
    }
    return slot
  }

  /**
   * A new slot for a subject not held, as the most recently seen, its numbers to be set by the
   * caller. At the cap, the least recently seen subject is forgotten first and its slot reused.
   */
  add(subject: string): number {
    if (subject.length > SUBJECT_CHARS || !LATIN1.test(subject)) {
      throw new RangeError(`a rate-limit subject is at most ${SUBJECT_CHARS} latin1 characters`)
    }
    let slot: number
    if (this.#size >= this.#max) {
      slot = this.#oldest
      this.#forget(slot)
    } else {
      if (this.#free === NONE) this.#grow()
      slot = this.#free
      this.#free = this.#next[slot]!
    }
    const hash = this.#hash(subject)
    for (let i = 0; i < subject.length; i++) this.#chars[slot * SUBJECT_CHARS + i] = subject.charCodeAt(i)
    this.#lengths[slot] = subject.length
    this.#hashes[slot] = hash
    const bucket = hash & (this.#buckets.length - 1)
    this.#next[slot] = this.#buckets[bucket]!
    this.#buckets[bucket] = slot
    this.#append(slot)
    this.#size++
    return slot
  }

  /** Forgets the subject in `slot` (recorded for `takeChanges`); the slot is free for reuse. */
  remove(slot: number): void {
    this.#forget(slot)
    this.#dirty[slot] = 0
    this.#next[slot] = this.#free
    this.#free = slot
  }

  subject(slot: number): string {
    return latin1(this.#chars, slot * SUBJECT_CHARS, this.#lengths[slot]!)
  }

  /** The row in `slot`, read and written in place through one shared view: use it before the next call. */
  at(slot: number): HeldRow {
    this.#view.slot = slot
    return this.#view
  }

  /** The row in `slot` as an object of its own, for callers that keep it. */
  copy(slot: number): CounterRow {
    const view = this.at(slot)
    const { subject, minuteStart, minuteUsed, refusals, dayStart, dayUsed, bannedUntil } = view
    return { subject, minuteStart, minuteUsed, refusals, dayStart, dayUsed, bannedUntil }
  }

  /** Records the slot as changed, once until the next `takeChanges`. */
  markChanged(slot: number): void {
    if (!this.#trackChanges || this.#dirty[slot] === 1) return
    this.#dirty[slot] = 1
    this.#changed.push(slot)
  }

  isChanged(slot: number): boolean {
    return this.#dirty[slot] === 1
  }

  /**
   * Subjects forgotten and rows changed since the last call. Rows are read as they are taken
   * out, so they hold their latest counts; both are valid until the next call.
   */
  takeChanges(): { forgotten: Batch<string>; rows: Batch<CounterRow> } {
    const taken = this.#taken
    this.#taken = { changed: this.#changed, forgotten: this.#forgotten }
    this.#changed = taken.changed.clear()
    this.#forgotten = taken.forgotten.clear()
    const { changed, forgotten } = this.#taken
    // A slot listed twice (removed, then reused) is written once, and a removed one not at all.
    changed.retain((slot) => {
      if (this.#dirty[slot] === 0) return false
      this.#dirty[slot] = 0
      return true
    })
    return { forgotten, rows: { length: changed.length, slice: (from, to) => changed.slice(from, to).map((slot) => this.copy(slot)) } }
  }

  #forget(slot: number): void {
    if (this.#trackChanges) this.#forgotten.push(this.#chars, slot * SUBJECT_CHARS, this.#lengths[slot]!)
    const bucket = this.#hashes[slot]! & (this.#buckets.length - 1)
    if (this.#buckets[bucket] === slot) this.#buckets[bucket] = this.#next[slot]!
    else {
      let before = this.#buckets[bucket]!
      while (this.#next[before] !== slot) before = this.#next[before]!
      this.#next[before] = this.#next[slot]!
    }
    this.#unlink(slot)
    this.#size--
  }

  #holds(slot: number, subject: string): boolean {
    if (this.#lengths[slot] !== subject.length) return false
    const base = slot * SUBJECT_CHARS
    for (let i = 0; i < subject.length; i++) if (this.#chars[base + i] !== subject.charCodeAt(i)) return false
    return true
  }

  /** Seeded, so that addresses chosen to collide cannot be found without the seed. */
  #hash(subject: string): number {
    let h = this.#seed ^ subject.length
    for (let i = 0; i < subject.length; i++) {
      h = Math.imul(h ^ subject.charCodeAt(i), 0x5bd1e995)
      h ^= h >>> 15
    }
    return Math.imul(h ^ (h >>> 13), 0x85ebca6b) ^ (h >>> 16)
  }

  #append(slot: number): void {
    this.#older[slot] = this.#newest
    this.#newer[slot] = NONE
    if (this.#newest === NONE) this.#oldest = slot
    else this.#newer[this.#newest] = slot
    this.#newest = slot
  }

  #unlink(slot: number): void {
    const older = this.#older[slot]!
    const newer = this.#newer[slot]!
    if (older === NONE) this.#oldest = newer
    else this.#newer[older] = newer
    if (newer === NONE) this.#newest = older
    else this.#older[newer] = older
  }

  /** Doubles the slots (up to the cap): a table that never fills never holds memory for the cap. */
  #grow(): void {
    const old = this.#capacity
    const capacity = Math.min(this.#max, Math.max(FIRST_CAPACITY, old * 2))
    const widen = <T extends Uint8Array | Int32Array | Float64Array>(from: T, make: (n: number) => T, per = 1): T => {
      const to = make(capacity * per)
      to.set(from)
      return to
    }
    this.#chars = widen(this.#chars, (n) => new Uint8Array(n), SUBJECT_CHARS)
    this.#lengths = widen(this.#lengths, (n) => new Uint8Array(n))
    this.#hashes = widen(this.#hashes, (n) => new Int32Array(n))
    this.#next = widen(this.#next, (n) => new Int32Array(n))
    this.#older = widen(this.#older, (n) => new Int32Array(n))
    this.#newer = widen(this.#newer, (n) => new Int32Array(n))
    this.#dirty = widen(this.#dirty, (n) => new Uint8Array(n))
    this.numbers = widen(this.numbers, (n) => new Float64Array(n), STRIDE)
    this.#capacity = capacity
    for (let slot = capacity - 1; slot >= old; slot--) {
      this.#next[slot] = this.#free
      this.#free = slot
    }
    this.#rehash()
  }

  #rehash(): void {
    let buckets = 1
    while (buckets < this.#capacity * 2) buckets *= 2
    this.#buckets = new Int32Array(buckets).fill(NONE)
    for (let slot = this.#oldest; slot !== NONE; slot = this.#newer[slot]!) {
      const bucket = this.#hashes[slot]! & (buckets - 1)
      this.#next[slot] = this.#buckets[bucket]!
      this.#buckets[bucket] = slot
    }
  }
}
