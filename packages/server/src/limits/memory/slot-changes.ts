import type { CounterRow } from '../../storage/counter-file-types.ts'
import type { CounterChanges } from './row-table.ts'
import { RecordLog, SlotList, widened } from './typed-lists.ts'

/** What a table that tracks no changes takes: nothing. */
export const NO_CHANGES: CounterChanges = { forgotten: { length: 0, slice: () => [] }, rows: { length: 0, slice: () => [] } }

/**
 * What changed in a table of slots since the last `take`: the slots changed (each once) and
 * the subjects forgotten, kept as numbers and bytes so that a flood leaves no objects behind.
 * One pair of lists fills while the other, taken, is written.
 */
export class SlotChanges {
  #flags = new Uint8Array(0)
  #changed = new SlotList()
  #forgotten: RecordLog
  #taken: { changed: SlotList; forgotten: RecordLog }

  /** `width`: the longest subject, in bytes. */
  constructor(width: number) {
    this.#forgotten = new RecordLog(width)
    this.#taken = { changed: new SlotList(), forgotten: new RecordLog(width) }
  }

  /** Room for the flags of `capacity` slots. */
  widen(capacity: number): void {
    this.#flags = widened(this.#flags, capacity)
  }

  /** Records the slot as changed, once until the next `take`. */
  mark(slot: number): void {
    if (this.#flags[slot] === 1) return
    this.#flags[slot] = 1
    this.#changed.push(slot)
  }

  has(slot: number): boolean {
    return this.#flags[slot] === 1
  }

  /** The slot's subject is forgotten: its bytes are recorded; the slot itself is left as it is. */
  forgot(bytes: Uint8Array, offset: number, length: number): void {
    this.#forgotten.push(bytes, offset, length)
  }

  /** As `forgot`, for a subject held as a string (a key's). */
  forgotText(subject: string): void {
    this.#forgotten.pushText(subject)
  }

  /** The slot no longer holds a row: not to be written unless it changes again. */
  drop(slot: number): void {
    this.#flags[slot] = 0
  }

  /** Subjects forgotten, and changed rows read by `copy` as they are sliced; valid until the next call. */
  take(copy: (slot: number) => CounterRow): CounterChanges {
    const taken = this.#taken
    this.#taken = { changed: this.#changed, forgotten: this.#forgotten }
    this.#changed = taken.changed.clear()
    this.#forgotten = taken.forgotten.clear()
    const { changed, forgotten } = this.#taken
    // A slot listed twice (dropped, then reused) is written once, and a dropped one not at all.
    changed.retain((slot) => {
      if (this.#flags[slot] === 0) return false
      this.#flags[slot] = 0
      return true
    })
    return { forgotten, rows: { length: changed.length, slice: (from, to) => changed.slice(from, to).map(copy) } }
  }
}
