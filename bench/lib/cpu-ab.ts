// The CPU A/B: the server's CPU time per request (every thread of its process, from /proc)
// over a fixed number of requests, for two or more builds ("sides") taking turns over many short
// rounds; then the per-round ratios to the reference side, their median and bootstrap interval.
// Each side runs several server processes, used in turn: two processes of one build differ by a
// few percent of CPU per request (memory layout, JIT decisions), which one pair would take for
// a difference between the builds.
import { bootstrapMedian, verdict, type AbVerdict, type Interval } from './ab-stats.ts'
import { cpuBetween, readCpu, type CpuReading } from './cpu-time.ts'
import type { Core } from './processes.ts'
import { spread, type Spread } from './stats.ts'
import { runWrk, runWrkRequests, type RequestPlan } from './wrk.ts'

/** One running server of a side. */
export interface AbServer {
  pid: number
  origin: string
  key: string
  plan(workload: string): RequestPlan
  /** Runs after each of its runs, outside the measured window (e.g. deletes what a write workload created). */
  afterRun?(workload: string): Promise<void>
}

/** One build taking part in the A/B, with its servers (every side has as many). */
export interface AbSide {
  name: string
  servers: AbServer[]
}

export interface LoadSettings {
  connections: number
  core: Core
  realtime: boolean
}

export interface CpuRun {
  round: number
  /** Which of the side's servers ran it (0-based). */
  server: number
  workload: string
  side: string
  /** Answers the load generator received (the server also answered up to connections − 1 more). */
  requests: number
  cpuNs: number
  /** Where cpuNs came from: the threads' schedstat, or utime + stime when a thread exited during the run. */
  source: 'schedstat' | 'stat'
  wallMs: number
  /** How long wrk itself ran for (its own clock): requests ÷ this is the rate at saturation. */
  loadSeconds: number
  /** The server's CPU time from wrk's start to its exit (not to quiet): over wallMs, how busy it was while loaded. */
  loadedCpuNs: number
  /** Socket errors, timeouts and non-2xx answers. */
  errors: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A reading once the server has gone quiet: no thread running or waiting for a CPU, and no CPU
 * time used over the last 2 ms. So the requests in flight when the load stopped are counted
 * even while other processes hold the server off its core. Gives up waiting after 5 s (a server
 * with a timer firing may never look quiet for long).
 */
async function quietReading(pid: number): Promise<CpuReading> {
  let last = readCpu(pid)
  const deadline = performance.now() + 5000
  while (performance.now() < deadline) {
    await sleep(2)
    const now = readCpu(pid)
    const quiet = !last.runnable && !now.runnable && now.threadsNs === last.threadsNs
    last = now
    if (quiet) break
  }
  return last
}

export interface Measured {
  requests: number
  cpuNs: number
  source: CpuRun['source']
  wallMs: number
  loadSeconds: number
  loadedCpuNs: number
  errors: number
}

/** The server's CPU time over exactly `requests` answers of `workload`. */
export async function measureRun(server: AbServer, workload: string, requests: number, load: LoadSettings): Promise<Measured> {
  const before = await quietReading(server.pid)
  const started = performance.now()
  const result = await runWrkRequests(server.origin, server.plan(workload), {
    key: server.key,
    requests,
    maxSeconds: 300,
    ...load
  })
  const wallMs = performance.now() - started
  const loadedCpuNs = readCpu(server.pid).threadsNs - before.threadsNs
  const cpu = cpuBetween(before, await quietReading(server.pid))
  await server.afterRun?.(workload)
  return {
    requests: result.requests,
    cpuNs: cpu.ns,
    source: cpu.source,
    wallMs,
    loadSeconds: result.seconds,
    loadedCpuNs,
    errors: result.errors
  }
}

/** `seconds` of load on a server, to gauge its CPU time per request (ns) before the rounds are sized. */
export async function probe(server: AbServer, workload: string, seconds: number, load: LoadSettings): Promise<number> {
  const before = await quietReading(server.pid)
  const result = await runWrk(server.origin, server.plan(workload), { key: server.key, seconds, ...load })
  const cpu = cpuBetween(before, await quietReading(server.pid))
  await server.afterRun?.(workload)
  if (result.errors > 0) throw new Error(`${result.errors} errors (${result.non2xx} non-2xx) while probing ${workload}`)
  return cpu.ns / Math.max(1, result.requests)
}

/**
 * Round after round, every workload, every side over `requests[workload]` requests. Round r
 * runs on each side's server number s = (r − 1) mod servers, in cycle k = ⌊(r − 1) / servers⌋;
 * the side that goes first is number (s + k) mod sides: with two sides they alternate from one
 * round to the next, and each pair of servers is measured in both orders.
 */
export async function alternate(options: {
  sides: AbSide[]
  workloads: string[]
  rounds: number
  requests: Record<string, number>
  load: LoadSettings
  onRun?(run: CpuRun): void
}): Promise<CpuRun[]> {
  const { sides, rounds } = options
  const perSide = sides[0]!.servers.length
  if (sides.some((s) => s.servers.length !== perSide)) throw new Error('every side needs as many servers')
  const runs: CpuRun[] = []
  for (let round = 1; round <= rounds; round++) {
    const server = (round - 1) % perSide
    const first = server + Math.floor((round - 1) / perSide)
    for (const workload of options.workloads) {
      for (let i = 0; i < sides.length; i++) {
        const side = sides[(first + i) % sides.length]!
        const measured = await measureRun(side.servers[server]!, workload, options.requests[workload]!, options.load)
        const run = { round, server, workload, side: side.name, ...measured }
        runs.push(run)
        options.onRun?.(run)
      }
    }
  }
  return runs
}

export interface AbSummary {
  workload: string
  /** The side compared, and the side it is compared with. */
  side: string
  reference: string
  /** CPU time per request over the rounds, µs. */
  usPerRequest: { side: Spread; reference: Spread }
  /** Per round, the reference's CPU per request ÷ the side's: its speed ratio (below 1: the side is slower). */
  ratios: number[]
  interval: Interval
  verdict: AbVerdict
  /** The second instrument, from the same runs: requests per second at saturation, and the server's busy fraction. */
  throughput: {
    rps: { side: Spread; reference: Spread }
    /** Per round, the side's req/s ÷ the reference's. */
    ratios: number[]
    interval: Interval
    verdict: AbVerdict
    busy: { side: Spread; reference: Spread }
  }
  rounds: number
  errors: number
}

/** CPU time per request of a run, µs. */
export const usPerRequest = (run: { cpuNs: number; requests: number }) => run.cpuNs / run.requests / 1000
/** Answers per second of a run, by wrk's clock. */
const requestsPerSecond = (run: { requests: number; loadSeconds: number }) => run.requests / run.loadSeconds
/**
 * The share of the loaded time the server spent on a CPU: its CPU time from wrk's start to wrk's
 * exit ÷ that time (wrk's start-up, a few ms, included). Well below 1 at saturation, the server
 * idled while clients waited (a timer, a deferral, a blocking write).
 */
const busyFraction = (run: { loadedCpuNs: number; wallMs: number }) => run.loadedCpuNs / (run.wallMs * 1e6)

/**
 * Every side but `reference` against it, per workload: per-round ratios, their median, and its
 * interval by a bootstrap that resamples the pairs of servers, then the rounds of each pair
 * (servers of one build differ by a few percent), and the verdict.
 */
export function summarizeAb(
  runs: CpuRun[],
  reference: string,
  options: { seed?: number; resamples?: number; level?: number } = {}
): AbSummary[] {
  const out: AbSummary[] = []
  const workloads = [...new Set(runs.map((r) => r.workload))]
  const sides = [...new Set(runs.map((r) => r.side))].filter((s) => s !== reference)
  for (const workload of workloads) {
    const of = (side: string) => runs.filter((r) => r.workload === workload && r.side === side)
    const theirs = of(reference)
    for (const side of sides) {
      const mine = of(side)
      const ratios: number[] = []
      const rpsRatios: number[] = []
      const servers: number[] = []
      for (const run of mine) {
        const other = theirs.find((r) => r.round === run.round)
        if (other === undefined) continue
        ratios.push(usPerRequest(other) / usPerRequest(run))
        rpsRatios.push(requestsPerSecond(run) / requestsPerSecond(other))
        servers.push(run.server)
      }
      if (ratios.length === 0) continue
      const interval = bootstrapMedian(ratios, { ...options, groups: servers })
      const rpsInterval = bootstrapMedian(rpsRatios, { ...options, groups: servers })
      out.push({
        workload,
        side,
        reference,
        usPerRequest: { side: spread(mine.map(usPerRequest))!, reference: spread(theirs.map(usPerRequest))! },
        ratios,
        interval,
        verdict: verdict(interval),
        throughput: {
          rps: { side: spread(mine.map(requestsPerSecond))!, reference: spread(theirs.map(requestsPerSecond))! },
          ratios: rpsRatios,
          interval: rpsInterval,
          verdict: verdict(rpsInterval),
          busy: { side: spread(mine.map(busyFraction))!, reference: spread(theirs.map(busyFraction))! }
        },
        rounds: ratios.length,
        errors: [...mine, ...theirs].reduce((sum, r) => sum + r.errors, 0)
      })
    }
  }
  return out
}
