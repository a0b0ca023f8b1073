import { writeSync } from 'node:fs'

/** Blocks on a full non-blocking pipe without spinning: the one way to sleep in synchronous code. */
const pause = new Int32Array(new SharedArrayBuffer(4))

/**
 * Lines gathered in memory and written to a file descriptor synchronously, many per write(2): once
 * `minLength` characters wait, on `flush()` and on `flushSync()`. Nothing is ever in flight, so a
 * flush at exit writes everything. pino's own SonicBoom measures the byte length of its whole
 * pending buffer on every line (O(buffer) per line); this counts characters, which only decides when
 * to write, and joins the lines once per write.
 */
export class BufferedOutput {
  readonly #fd: number
  readonly #minLength: number
  #lines: string[] = []
  #length = 0

  constructor(fd: number, minLength: number) {
    this.#fd = fd
    this.#minLength = minLength
  }

  /** pino's destination interface: one serialized line, newline included. */
  write(line: string): boolean {
    this.#lines.push(line)
    this.#length += line.length
    if (this.#length >= this.#minLength) this.flushSync()
    return true
  }

  flush(): void {
    this.flushSync()
  }

  /**
   * Writes every waiting line; waits out a full pipe (EAGAIN) rather than dropping lines. When the
   * output is gone (EPIPE: whoever read the log has exited) the lines are dropped: serving goes on.
   */
  flushSync(): void {
    if (this.#lines.length === 0) return
    let rest = Buffer.from(this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join(''), 'utf8')
    this.#lines = []
    this.#length = 0
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(this.#fd, rest))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return
        Atomics.wait(pause, 0, 0, 1)
      }
    }
  }
}
