import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { renderMarkdown, renderText, type Report } from '../lib/report.ts'
import { compareRevisions, compareScales, summarize, verdicts, type Measurement, type TargetInfo } from '../lib/results.ts'
import type { TargetId } from '../lib/targets.ts'
import type { WorkloadId } from '../lib/workloads.ts'

const SMALL = 1000
const LARGE = 1_000_000

function measurement(
  pets: number,
  round: number,
  target: TargetId,
  rps: number,
  more: { p99Ms?: number; workload?: WorkloadId } = {}
): Measurement {
  return {
    pets,
    round,
    workload: more.workload ?? 'get',
    target,
    rps,
    p50Ms: 1,
    p90Ms: 1,
    p99Ms: more.p99Ms ?? 2,
    maxMs: 5,
    requests: rps * 6,
    errors: 0,
    non2xx: 0,
    rssPeakMb: 150
  }
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
      const line = verdicts({ summaries, scales: compareScales(measurements, summaries), targets, startups: [], connections: 50 }).find(
        (v) => v.check.includes('within 1.2×')
      )
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

const BEFORE = 'service-sqlite@abc1234'
const REVISION = { given: 'HEAD~3', commit: 'abc1234'.padEnd(40, '0'), short: 'abc1234' }
const TARGETS: TargetInfo[] = [
  { id: 'ceiling', role: 'ceiling', label: 'ceiling', hwmMb: {}, seedMs: {} },
  { id: 'service-sqlite', role: 'service', label: 'service', hwmMb: {}, seedMs: {} },
  { id: BEFORE, role: 'service', label: 'service, at abc1234', baselineOf: 'service-sqlite', revision: REVISION, hwmMb: {}, seedMs: {} }
]

/** Rounds of the service now and at the baseline revision: [req/s, p99 ms] of each, per round. */
function nowAndBefore(
  rounds: Array<{ now: [rps: number, p99Ms: number]; before?: [rps: number, p99Ms: number] }>,
  pets = SMALL,
  workload: WorkloadId = 'get'
): Measurement[] {
  return rounds.flatMap(({ now, before }, i) => [
    measurement(pets, i + 1, 'ceiling', 50_000, { workload }),
    measurement(pets, i + 1, 'service-sqlite', now[0], { p99Ms: now[1], workload }),
    ...(before === undefined ? [] : [measurement(pets, i + 1, BEFORE, before[0], { p99Ms: before[1], workload })])
  ])
}

const compare = (measurements: Measurement[], targets = TARGETS) => compareRevisions(measurements, summarize(measurements), targets)

describe('bench: before/after against the baseline revision, per round', () => {
  test("now ÷ before is taken per round, then the median: the machine's speed between rounds moves both sides", () => {
    // The machine runs at 10k, 30k and 20k req/s in rounds 1 to 3; this checkout is 1.2×, 1.1× and
    // 0.9× the baseline revision in the same round. The ratio of the medians (18k ÷ 20k) would say 0.9×.
    const [c, ...rest] = compare(
      nowAndBefore([
        { now: [12_000, 2], before: [10_000, 2] },
        { now: [33_000, 2], before: [30_000, 2] },
        { now: [18_000, 2], before: [20_000, 2] }
      ])
    )
    assert.equal(rest.length, 0)
    assert.ok(c)
    assert.equal(c.target, 'service-sqlite')
    assert.equal(c.baseline, BEFORE)
    assert.equal(c.rps.ratio?.median.toFixed(4), '1.1000')
    assert.equal(c.rps.ratio?.min.toFixed(4), '0.9000')
    assert.equal(c.rps.ratio?.max.toFixed(4), '1.2000')
    assert.equal(c.rps.ratio?.n, 3)
    // Each side's own median over rounds, as in the main table.
    assert.equal(c.rps.now, 18_000)
    assert.equal(c.rps.before, 20_000)
  })

  test("p99: now ÷ before per round (below 1: lower now), and each side's median", () => {
    const [c] = compare(
      nowAndBefore([
        { now: [20_000, 1], before: [20_000, 2] },
        { now: [20_000, 3], before: [20_000, 3] },
        { now: [20_000, 2], before: [20_000, 4] }
      ])
    )
    assert.ok(c)
    assert.equal(c.p99Ms.ratio?.median.toFixed(4), '0.5000')
    assert.equal(c.p99Ms.now, 2)
    assert.equal(c.p99Ms.before, 3)
  })

  test('a round missing the baseline is left out rather than paired with another round', () => {
    const [c] = compare(nowAndBefore([{ now: [12_000, 2], before: [10_000, 2] }, { now: [40_000, 2] }]))
    assert.ok(c)
    assert.equal(c.rps.ratio?.n, 1)
    assert.equal(c.rps.ratio?.median.toFixed(4), '1.2000')
  })

  test('one row per store size and workload, in that order; nothing without a baseline target', () => {
    const measurements = [
      ...nowAndBefore([{ now: [8_000, 2], before: [10_000, 2] }], LARGE, 'get'),
      ...nowAndBefore([{ now: [30_000, 2], before: [20_000, 2] }], SMALL, 'get'),
      ...nowAndBefore([{ now: [15_000, 2], before: [10_000, 2] }], SMALL, 'list')
    ]
    assert.deepEqual(
      compare(measurements).map((c) => `${c.pets} ${c.workload} ${c.rps.ratio?.median.toFixed(2)}`),
      ['1000 list 1.50', '1000 get 1.50', '1000000 get 0.80']
    )
    assert.deepEqual(
      compare(
        measurements,
        TARGETS.filter((t) => t.baselineOf === undefined)
      ),
      []
    )
  })

  test('the report shows the baseline target in the main table, a before/after table, and the targets without issue numbers', () => {
    const measurements = nowAndBefore([
      { now: [12_000, 1], before: [10_000, 2] },
      { now: [33_000, 1], before: [30_000, 2] },
      { now: [18_000, 1], before: [20_000, 2] }
    ])
    const summaries = summarize(measurements)
    const report: Report = {
      title: 'test',
      preamble: [],
      targets: TARGETS,
      summaries,
      scales: [],
      revisions: compareRevisions(measurements, summaries, TARGETS),
      startups: [],
      verdicts: verdicts({ summaries, scales: [], targets: TARGETS, startups: [], connections: 50 }),
      notes: []
    }
    for (const rendered of [renderText(report), renderMarkdown(report)]) {
      assert.match(rendered, /Before\/after: this checkout \("now"\) against HEAD~3 \(abc1234\)/)
      assert.match(rendered, /service-sqlite@abc1234/)
      assert.match(rendered, /1\.10× \(0\.90×–1\.20×\)/)
      assert.match(rendered, /0\.50× \(0\.50×–0\.50×\)/)
      assert.match(rendered, /Targets \(ratios measured in this run\)/)
      assert.doesNotMatch(rendered, /naive baseline @/, 'no verdict against a naive baseline that did not run')
      assert.doesNotMatch(rendered, /issue/i)
    }
  })
})
