/** A sequence read a slice at a time, so that a long one is never held as objects all at once. */
export interface TakenList<T> {
  readonly length: number
  slice(from: number, to: number): T[]
}

/** A growable list of slot numbers in one Int32Array: pushing allocates nothing until it doubles. */
export class SlotList implements TakenList<number> {
  #items = new Int32Array(256)
  #length = 0

  get length(): number {
    return this.#length
  }

  push(slot: number): void {
    if (this.#length === this.#items.length) {
      const wider = new Int32Array(this.#items.length * 2)
      wider.set(this.#items)
      this.#items = wider
    }
    this.#items[this.#length++] = slot
  }

  /** Keeps, in order, the items `keep` accepts. */
  retain(keep: (slot: number) => boolean): void {
    let kept = 0
    for (let i = 0; i < this.#length; i++) if (keep(this.#items[i]!)) this.#items[kept++] = this.#items[i]!
    this.#length = kept
  }

  slice(from: number, to: number): number[] {
    return Array.from(this.#items.subarray(Math.min(from, this.#length), Math.min(to, this.#length)))
  }

  clear(): this {
    this.#length = 0
    return this
  }
}

/** A growable log of latin1 strings of at most `width` characters, kept as bytes until read. */
export class RecordLog implements TakenList<string> {
  readonly #width: number
  #bytes: Uint8Array
  #lengths = new Uint8Array(256)
  #length = 0

  constructor(width: number) {
    this.#width = width
    this.#bytes = new Uint8Array(256 * width)
  }

  get length(): number {
    return this.#length
  }

  push(source: Uint8Array, offset: number, length: number): void {
    const base = this.#append(length)
    for (let i = 0; i < length; i++) this.#bytes[base + i] = source[offset + i]!
  }

  /** As `push`, from a string of at most `width` latin1 characters. */
  pushText(text: string): void {
    const base = this.#append(text.length)
    for (let i = 0; i < text.length; i++) this.#bytes[base + i] = text.charCodeAt(i)
  }

  /** Room for one more record of `length` bytes: where its bytes go. */
  #append(length: number): number {
    if (this.#length === this.#lengths.length) {
      const bytes = new Uint8Array(this.#bytes.length * 2)
      bytes.set(this.#bytes)
      this.#bytes = bytes
      const lengths = new Uint8Array(this.#lengths.length * 2)
      lengths.set(this.#lengths)
      this.#lengths = lengths
    }
    this.#lengths[this.#length] = length
    return this.#length++ * this.#width
  }

  slice(from: number, to: number): string[] {
    const out: string[] = []
    for (let i = from; i < Math.min(to, this.#length); i++) out.push(latin1(this.#bytes, i * this.#width, this.#lengths[i]!))
    return out
  }

  clear(): this {
    this.#length = 0
    return this
  }
}

/** A copy of `from` with room for `length` items, the rest zero. */
export function widened<T extends Uint8Array | Int32Array | Float64Array>(from: T, length: number): T {
  const to = new (from.constructor as new (length: number) => T)(length)
  to.set(from)
  return to
}

/** Two batches read as one, `first` then `second`. */
export function joined<T>(first: TakenList<T>, second: TakenList<T>): TakenList<T> {
  return {
    length: first.length + second.length,
    slice: (from, to) => [...first.slice(from, to), ...second.slice(Math.max(0, from - first.length), Math.max(0, to - first.length))]
  }
}

export function latin1(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length))
}
