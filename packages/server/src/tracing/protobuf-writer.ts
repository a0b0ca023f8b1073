import type { SpanAttributes } from '../base/tracing.ts'

const MAX_UINT32 = 2 ** 32 - 1
const WORD = 0x100000000

/**
 * Protobuf's wire format into one growing buffer, kept from batch to batch. Tags are written as
 * the bytes they encode to (fields below 16 take one). What OTLP's spans need, no more.
 */
export class ProtobufWriter {
  buffer: Buffer
  pos = 0

  constructor(capacity = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(capacity)
  }

  /** Makes room for `bytes` more. */
  reserve(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.pos + bytes))
    this.buffer.copy(grown, 0, 0, this.pos)
    this.buffer = grown
  }

  byte(value: number): void {
    this.buffer[this.pos++] = value
  }

  varint(value: number): void {
    this.pos = writeVarint(this.buffer, this.pos, value)
  }

  /** Starts a length-delimited field with one byte for its length: most are shorter than 128. */
  open(): number {
    return this.pos++
  }

  /** Writes the length of the field `open` started, moving its bytes on when it takes more than one. */
  close(at: number): void {
    const length = this.pos - at - 1
    const size = varintSize(length)
    if (size > 1) {
      this.buffer.copyWithin(at + size, at + 1, this.pos)
      this.pos += size - 1
    }
    writeVarint(this.buffer, at, length)
  }

  string(value: string): void {
    const length = value.length
    let ascii = length < 128
    for (let i = 0; ascii && i < length; i++) ascii = value.charCodeAt(i) < 0x80
    if (ascii) {
      // Short ASCII (names, routes, paths) by hand: a native write costs more than the copy.
      this.buffer[this.pos++] = length
      for (let i = 0; i < length; i++) this.buffer[this.pos++] = value.charCodeAt(i)
      return
    }
    this.varint(Buffer.byteLength(value))
    this.pos += this.buffer.write(value, this.pos, 'utf8')
  }

  /** Bytes spelt in hex (an id), with their length. */
  hex(value: string, bytes: number): void {
    this.buffer[this.pos++] = bytes
    this.pos += this.buffer.write(value, this.pos, bytes, 'hex')
  }

  fixed32(value: number): void {
    this.buffer.writeUInt32LE(value >>> 0, this.pos)
    this.pos += 4
  }

  /** seconds × 10⁹ + nanos as fixed64: past a double's 53 bits, so the two words are summed apart. */
  nanos(seconds: number, nanos: number): void {
    const low = (seconds % 0x10000) * 1e9
    const high = Math.floor(seconds / 0x10000) * 1e9
    const lowSum = (low % WORD) + (high % 0x10000) * 0x10000 + nanos
    const highWord = Math.floor(low / WORD) + Math.floor(high / 0x10000) + Math.floor(lowSum / WORD)
    this.buffer.writeUInt32LE(lowSum % WORD, this.pos)
    this.buffer.writeUInt32LE(highWord % WORD, this.pos + 4)
    this.pos += 8
  }

  /** Repeated KeyValue under the tag byte `tag`, in the object's order, each value an AnyValue. */
  attributes(tag: number, attributes: SpanAttributes): void {
    for (const key in attributes) {
      const value = attributes[key]!
      this.byte(tag)
      const pair = this.open()
      this.byte(0x0a)
      this.string(key)
      this.byte(0x12)
      const any = this.open()
      if (typeof value === 'string') {
        this.byte(0x0a)
        this.string(value)
      } else if (typeof value === 'boolean') {
        this.byte(0x10)
        this.varint(value ? 1 : 0)
      } else if (Number.isSafeInteger(value)) {
        this.byte(0x18)
        this.varint(value)
      } else {
        this.byte(0x21)
        this.buffer.writeDoubleLE(value, this.pos)
        this.pos += 8
      }
      this.close(any)
      this.close(pair)
    }
  }

  /** A copy of what was written. */
  bytes(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.pos))
  }
}

/** How many bytes `value` (0 to 2³² − 1) takes as a varint. */
export function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

/**
 * Writes `value` as a varint at `at`, returning the position after it. A negative integer takes
 * ten bytes, its 64-bit two's complement, as protobuf writes an int64.
 */
export function writeVarint(buffer: Buffer, at: number, value: number): number {
  if (value >= 0 && value <= MAX_UINT32) {
    let v = value >>> 0
    while (v > 0x7f) {
      buffer[at++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    buffer[at++] = v
    return at
  }
  let v = BigInt.asUintN(64, BigInt(value))
  while (v > 0x7fn) {
    buffer[at++] = Number(v & 0x7fn) | 0x80
    v >>= 7n
  }
  buffer[at++] = Number(v)
  return at
}
