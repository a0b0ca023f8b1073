// The CPU time a live process has used, read from /proc. The sum over its threads of
// /proc/<pid>/task/<tid>/schedstat (field 1: time on a CPU, ns) counts V8's and libuv's worker
// threads at nanosecond resolution; utime + stime of /proc/<pid>/stat (clock ticks, 10 ms) also
// counts threads that have exited, so it checks the sum.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

export interface CpuReading {
  /** Time on a CPU of the threads alive now, ns. */
  threadsNs: number
  /** Whether any thread is running or waiting for a CPU (state R): the process has work in hand. */
  runnable: boolean
  /** utime + stime of the whole process (exited threads included), ns, in whole clock ticks. */
  statNs: number
}

/** Clock ticks per second (`getconf CLK_TCK`; 100 when it cannot be read). */
export const CLOCK_TICK_NS = (() => {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout)
  return 1e9 / (Number.isInteger(ticks) && ticks > 0 ? ticks : 100)
})()

/** utime + stime in clock ticks: fields 14 and 15, counted after the parenthesised command name. */
function statTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  return Number(fields[11]) + Number(fields[12])
}

/** Reads both counters of process `pid`; throws when it has exited. */
export function readCpu(pid: number): CpuReading {
  let threadsNs = 0
  let runnable = false
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threadsNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0])
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1')
      if (stat[stat.lastIndexOf(')') + 2] === 'R') runnable = true
    } catch {
      // the thread exited between the listing and the read: /proc/<pid>/stat still counts it
    }
  }
  return { threadsNs, runnable, statNs: statTicks(pid) * CLOCK_TICK_NS }
}

/**
 * The CPU time used between two readings, ns: the threads' sum, unless utime + stime grew by
 * more than that sum can explain (each is rounded down to a tick: two ticks of slack), which
 * means a thread exited in between and took its time out of the sum; then utime + stime.
 */
export function cpuBetween(before: CpuReading, after: CpuReading): { ns: number; source: 'schedstat' | 'stat' } {
  const threads = after.threadsNs - before.threadsNs
  const stat = after.statNs - before.statNs
  if (threads >= 0 && stat <= threads + 2 * CLOCK_TICK_NS) return { ns: threads, source: 'schedstat' }
  return { ns: stat, source: 'stat' }
}
