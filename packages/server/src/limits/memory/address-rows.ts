import { randomInt } from 'node:crypto'
import type { CounterRow } from '../../storage/counter-file-types.ts'
import { checkSubject, SUBJECT_CHARS, type CounterChanges, type HeldRow, type RowTable } from './row-table.ts'
import { SlotView, STRIDE } from './slot-view.ts'
import { NO_CHANGES, SlotChanges } from './slot-changes.ts'
import { SlotOrder } from './slot-order.ts'
import { latin1, widened } from './typed-lists.ts'

const NONE = -1
const FIRST_CAPACITY = 1024

/**
 * The counter rows of client addresses in typed arrays: subjects in fixed-size slots, a seeded
 * hash index, the least-recently-seen order as slot links, and the counts as numbers. Every
 * operation is O(1); past the cap a new address reuses the oldest slot, so a flood leaves no
 * strings, map entries or row objects for V8 to promote and keep until its next full collection.
 */
export class AddressRows implements RowTable {
  readonly #max: number
  readonly #seed = randomInt(2 ** 32) | 0
  #size = 0
  #chars = new Uint8Array(0)
  #lengths = new Uint8Array(0)
  #hashes = new Int32Array(0)
  #next = new Int32Array(0)
  #buckets = new Int32Array(0)
  #free = NONE
  readonly #order = new SlotOrder()
  /** Changed slots and forgotten subjects since the last `takeChanges`, when tracked. */
  readonly #changes: SlotChanges | undefined
  /** Each slot's counts, `STRIDE` numbers apart; replaced when the table grows. */
  numbers = new Float64Array(0)
  readonly #view = new SlotView(this)

  /** `trackChanges`: record changed rows and forgotten subjects for `takeChanges`. */
  constructor(max: number, options: { trackChanges: boolean }) {
    this.#max = max
    this.#changes = options.trackChanges ? new SlotChanges(SUBJECT_CHARS) : undefined
  }

  get size(): number {
    return this.#size
  }

  /** The least recently seen slot, or -1. */
  get oldest(): number {
    return this.#order.oldest
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
    if (slot !== NONE) this.#order.touch(slot)
    return slot
  }

  /**
   * A new slot for a subject not held, as the most recently seen, its numbers to be set by the
   * caller. At the cap, the least recently seen subject is forgotten first and its slot reused.
   */
  add(subject: string): number {
    checkSubject(subject)
    let slot: number
    if (this.#size >= this.#max) {
      slot = this.#order.oldest
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
    this.#order.append(slot)
    this.#size++
    return slot
  }

  /** Forgets the subject in `slot` (recorded for `takeChanges`); the slot is free for reuse. */
  remove(slot: number): void {
    this.#forget(slot)
    this.#changes?.drop(slot)
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
    const { subject, minuteStart, minuteUsed, refusals, dayStart, dayUsed, monthStart, monthUsed, bannedUntil } = view
    return { subject, minuteStart, minuteUsed, refusals, dayStart, dayUsed, monthStart, monthUsed, bannedUntil }
  }

  /** Records the slot as changed, once until the next `takeChanges`. */
  markChanged(slot: number): void {
    this.#changes?.mark(slot)
  }

  isChanged(slot: number): boolean {
    return this.#changes?.has(slot) === true
  }

  /**
   * Subjects forgotten and rows changed since the last call. Rows are read as they are taken
   * out, so they hold their latest counts; both are valid until the next call.
   */
  takeChanges(): CounterChanges {
    return this.#changes?.take((slot) => this.copy(slot)) ?? NO_CHANGES
  }

  #forget(slot: number): void {
    this.#changes?.forgot(this.#chars, slot * SUBJECT_CHARS, this.#lengths[slot]!)
    const bucket = this.#hashes[slot]! & (this.#buckets.length - 1)
    if (this.#buckets[bucket] === slot) this.#buckets[bucket] = this.#next[slot]!
    else {
      let before = this.#buckets[bucket]!
      while (this.#next[before] !== slot) before = this.#next[before]!
      this.#next[before] = this.#next[slot]!
    }
    this.#order.unlink(slot)
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

  /** Doubles the slots (up to the cap): a table that never fills never holds memory for the cap. */
  #grow(): void {
    const old = this.#lengths.length
    const capacity = Math.min(this.#max, Math.max(FIRST_CAPACITY, old * 2))
    this.#chars = widened(this.#chars, capacity * SUBJECT_CHARS)
    this.#lengths = widened(this.#lengths, capacity)
    this.#hashes = widened(this.#hashes, capacity)
    this.#next = widened(this.#next, capacity)
    this.#order.widen(capacity)
    this.numbers = widened(this.numbers, capacity * STRIDE)
    this.#changes?.widen(capacity)
    for (let slot = capacity - 1; slot >= old; slot--) {
      this.#next[slot] = this.#free
      this.#free = slot
    }
    this.#rehash()
  }

  #rehash(): void {
    let buckets = 1
    while (buckets < this.#lengths.length * 2) buckets *= 2
    this.#buckets = new Int32Array(buckets).fill(NONE)
    for (let slot = this.#order.oldest; slot !== NONE; slot = this.#order.newer(slot)) {
      const bucket = this.#hashes[slot]! & (buckets - 1)
      this.#next[slot] = this.#buckets[bucket]!
      this.#buckets[bucket] = slot
    }
  }
}
