import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { describe, test } from 'node:test'
import { CLOCK_TICK_NS, cpuBetween, readCpu } from '../lib/cpu-time.ts'

const TICK = CLOCK_TICK_NS

describe('bench: CPU time from /proc', { skip: existsSync('/proc/self/task') ? false : 'no /proc/<pid>/task (not Linux)' }, () => {
  test('a process reading itself: running, and its threads’ time grows by the CPU it burns', () => {
    const before = readCpu(process.pid)
    // 100 ms of this process's own CPU time (not wall time: the machine may be busy).
    const start = process.cpuUsage()
    let x = 0
    while (process.cpuUsage(start).user + process.cpuUsage(start).system < 100_000) x = (x * 31 + 7) | 0
    const after = readCpu(process.pid)
    assert.ok(after.runnable, 'the reading thread itself is running')
    const { ns, source } = cpuBetween(before, after)
    assert.equal(source, 'schedstat')
    assert.ok(ns >= 90e6, `${ns} ns of threads' time for ≥ 100 ms of CPU (x = ${x})`)
    // utime + stime agree to within their two ticks of rounding and what other threads did meanwhile.
    const stat = after.statNs - before.statNs
    assert.ok(Math.abs(stat - ns) <= 2 * TICK + 0.2 * ns, `stat ${stat} ns against threads ${ns} ns`)
  })

  test('the threads’ sum is used unless utime + stime grew by more than two ticks beyond it', () => {
    const at = (threadsNs: number, statTicks: number) => ({ threadsNs, statNs: statTicks * TICK, runnable: false })
    assert.deepEqual(cpuBetween(at(1e9, 100), at(1.5e9, 150)), { ns: 0.5e9, source: 'schedstat' })
    // Rounding down to ticks may show up to two ticks more than the threads' sum.
    assert.deepEqual(cpuBetween(at(1e9, 100), at(1.5e9, 152)), { ns: 0.5e9, source: 'schedstat' })
    // A thread exited: its time left the sum but stays in utime + stime.
    assert.deepEqual(cpuBetween(at(1e9, 100), at(1.2e9, 150)), { ns: 50 * TICK, source: 'stat' })
    assert.deepEqual(cpuBetween(at(1e9, 100), at(0.9e9, 110)), { ns: 10 * TICK, source: 'stat' })
  })
})
