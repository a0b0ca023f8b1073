import { widened } from './typed-lists.ts'

const NONE = -1

/** Slots from least to most recently seen, as a doubly linked list in two Int32Arrays: every step O(1). */
export class SlotOrder {
  #older = new Int32Array(0)
  #newer = new Int32Array(0)
  #oldest = NONE
  #newest = NONE

  /** The least recently seen slot, or -1. */
  get oldest(): number {
    return this.#oldest
  }

  /** The slot seen next after `slot`, or -1. */
  newer(slot: number): number {
    return this.#newer[slot]!
  }

  /** Room for `capacity` slots. */
  widen(capacity: number): void {
    this.#older = widened(this.#older, capacity)
    this.#newer = widened(this.#newer, capacity)
  }

  /** Adds a slot not in the list as the most recently seen. */
  append(slot: number): void {
    this.#older[slot] = this.#newest
    this.#newer[slot] = NONE
    if (this.#newest === NONE) this.#oldest = slot
    else this.#newer[this.#newest] = slot
    this.#newest = slot
  }

  /** Makes a slot in the list the most recently seen. */
  touch(slot: number): void {
    if (slot === this.#newest) return
    this.unlink(slot)
    this.append(slot)
  }

  unlink(slot: number): void {
    const older = this.#older[slot]!
    const newer = this.#newer[slot]!
    if (older === NONE) this.#oldest = newer
    else this.#newer[older] = newer
    if (newer === NONE) this.#newest = older
    else this.#older[newer] = older
  }
}
