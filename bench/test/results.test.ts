import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { compareScales, summarize, verdicts, type Measurement } from '../lib/results.ts'
import type { TargetId } from '../lib/targets.ts'

const SMALL = 1000
const LARGE = 1_000_000

function measurement(pets: number, round: number, target: TargetId, rps: number): Measurement {
  return { pets, round, workload: 'get', target, rps, p50Ms: 1, p90Ms: 1, p99Ms: 2, maxMs: 5, requests: rps * 6, errors: 0, non2xx: 0, rssPeakMb: 150 }
}

/** One round: the ceiling and the service at both store sizes. */
function round(n: number, ceiling: [small: number, large: number], service: [small: number, large: number]): Measurement[] {
  return [
    measurement(SMALL, n, 'ceiling', ceiling[0]),
    measurement(LARGE, n, 'ceiling', ceiling[1]),
    measurement(SMALL, n, 'service-sqlite', service[0]),
    measurement(LARGE, n, 'service-sqlite', service[1])
  ]
}

function flatness(measurements: Measurement[]) {
  const comparison = compareScales(measurements, summarize(measurements)).find((c) => c.target === 'service-sqlite')
  assert.ok(comparison)
  return comparison
}

describe('bench: cost against store size, per round', () => {
  test('a machine that speeds up and slows down between rounds moves no ratio: each round is compared with itself', () => {
    // The service is always 0.6x the ceiling at 1,000 pets and 0.5x at 1,000,000 (1.2x slower),
    // while the machine's speed doubles from round to round.
    const measurements = [
      ...round(1, [30_000, 30_000], [18_000, 15_000]),
      ...round(2, [60_000, 60_000], [36_000, 30_000]),
      ...round(3, [30_000, 60_000], [18_000, 30_000])
    ]
    const c = flatness(measurements)
    assert.equal(c.ceilingSlowdown?.toFixed(4), '1.2000')
    // Raw req/s per round: 1.2, 1.2 and 0.6 (the ceiling doubled between the two sizes in round 3).
    assert.equal(c.rpsSlowdown.toFixed(4), '1.2000')
  })

  test('the median over rounds, so one disturbed round does not decide the verdict', () => {
    const measurements = [
      ...round(1, [50_000, 50_000], [40_000, 40_000]),
      ...round(2, [50_000, 50_000], [40_000, 40_000]),
      ...round(3, [50_000, 50_000], [40_000, 10_000])
    ]
    assert.equal(flatness(measurements).ceilingSlowdown?.toFixed(4), '1.0000')
  })

  test('a round missing a measurement at either size is left out rather than paired across rounds', () => {
    const measurements = [
      ...round(1, [50_000, 50_000], [40_000, 20_000]),
      // Round 2 lost the service at 1,000,000 pets: its 1,000-pet figure must not meet round 1's
      // (a ratio of medians would give (0.8 + 0.4) / 2 ÷ 0.4 = 1.5).
      ...round(2, [50_000, 50_000], [20_000, 0]).filter((m) => !(m.target === 'service-sqlite' && m.pets === LARGE))
    ]
    assert.equal(flatness(measurements).ceilingSlowdown?.toFixed(4), '2.0000')
  })

  test('the flatness verdict is judged on the per-round ×ceil slowdown against 1.2×', () => {
    const pass = [...round(1, [50_000, 40_000], [30_000, 24_000]), ...round(2, [50_000, 50_000], [30_000, 26_000])]
    const fail = [...round(1, [50_000, 50_000], [30_000, 24_000]), ...round(2, [50_000, 50_000], [30_000, 24_000])]
    const judge = (measurements: Measurement[]) => {
      const summaries = summarize(measurements)
      const targets = [{ id: 'service-sqlite' as const, role: 'service' as const, label: 'service', hwmMb: {}, seedMs: {} }]
      const line = verdicts({ summaries, scales: compareScales(measurements, summaries), targets, startups: [], connections: 50 }).find((v) => v.check.includes('within 1.2×'))
      assert.ok(line)
      return line
    }
    // Round 1: 0.6x ÷ 0.6x = 1.0; round 2: 0.6x ÷ 0.52x ≈ 1.15: median ≈ 1.08.
    assert.equal(judge(pass).ok, true)
    assert.match(judge(pass).detail, /^get 1\.08× \(raw 1\.20×\)$/)
    // 0.6x ÷ 0.48x = 1.25 in both rounds.
    assert.equal(judge(fail).ok, false)
    assert.match(judge(fail).detail, /^get 1\.25× \(raw 1\.25×\)$/)
  })
})
