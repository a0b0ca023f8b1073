import { randomFillSync } from 'node:crypto'

// Drawn a page at a time: one system call per 256 span ids.
const pool = Buffer.allocUnsafe(4096)
let used = pool.length

function draw(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const id = pool.toString('hex', used, used + bytes)
  used += bytes
  return id
}

const INVALID_SPAN_ID = '0'.repeat(16)
const INVALID_TRACE_ID = '0'.repeat(32)

/** A random span id in hex; never all zeros (invalid in W3C Trace Context). */
export function newSpanId(): string {
  let id = draw(8)
  while (id === INVALID_SPAN_ID) id = draw(8)
  return id
}

/** A random trace id in hex; never all zeros. */
export function newTraceId(): string {
  let id = draw(16)
  while (id === INVALID_TRACE_ID) id = draw(16)
  return id
}
