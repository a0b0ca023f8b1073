// Test fixture: loaded into a server with NODE_OPTIONS="--import <this file>", it makes the same
// server cost a known amount more per request. Before every 'request' event of any http.Server it
// spins a register-only loop for BENCH_SPIN_NS nanoseconds of CPU time, calibrated at start-up.
// The server's code is not touched.
import { Server } from 'node:http'

const targetNs = Number(process.env.BENCH_SPIN_NS)
if (!(targetNs > 0)) throw new Error(`spin-preload: BENCH_SPIN_NS must be a positive number of ns (got ${process.env.BENCH_SPIN_NS})`)

let sink = 0
function spin(iterations: number): void {
  let x = sink
  for (let i = 0; i < iterations; i++) x = (Math.imul(x, 1103515245) + 12345) | 0
  sink = x
}

/**
 * ns per iteration: the fastest of several timed batches. A batch the scheduler interrupts only
 * looks slower, so the fastest is the loop's own cost on the CPU.
 */
function nsPerIteration(): number {
  const batch = 2_000_000
  for (let i = 0; i < 5; i++) spin(batch)
  let best = Infinity
  for (let i = 0; i < 15; i++) {
    const start = process.hrtime.bigint()
    spin(batch)
    best = Math.min(best, Number(process.hrtime.bigint() - start) / batch)
  }
  return best
}

const perIteration = nsPerIteration()
const iterations = Math.round(targetNs / perIteration)
process.stderr.write(`spin-preload: ${iterations} iterations per request (${perIteration.toFixed(3)} ns each, ${targetNs} ns)\n`)

type Emit = (this: Server, event: string | symbol, ...args: unknown[]) => boolean
const emit = Reflect.get(Server.prototype, 'emit') as Emit
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
  if (event === 'request') spin(iterations)
  return emit.call(this, event, ...args)
} as typeof Server.prototype.emit
