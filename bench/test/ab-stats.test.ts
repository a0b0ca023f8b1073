import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bootstrapMedian, median, seededRandom, verdict, type Interval } from '../lib/ab-stats.ts'

/** Normal variates from a seeded generator (Box–Muller), for data with a known spread. */
function normals(seed: number, n: number, mean: number, sd: number): number[] {
  const random = seededRandom(seed)
  return Array.from({ length: n }, () => mean + sd * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()))
}

const interval = (median: number, low: number, high: number): Interval => ({
  median,
  low,
  high,
  level: 0.95,
  resamples: 10_000,
  n: 20,
  groups: 1
})

describe('bench: A/B statistics', () => {
  test('the seeded generator repeats itself and stays in [0, 1)', () => {
    const a = seededRandom(42)
    const b = seededRandom(42)
    const c = seededRandom(43)
    const first = Array.from({ length: 1000 }, () => a())
    assert.deepEqual(
      first,
      Array.from({ length: 1000 }, () => b())
    )
    assert.notDeepEqual(
      first.slice(0, 10),
      Array.from({ length: 10 }, () => c())
    )
    assert.ok(first.every((x) => x >= 0 && x < 1))
    const mean = first.reduce((s, x) => s + x, 0) / first.length
    assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`)
  })

  test('median: the middle value, or the mean of the two middle ones', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([4, 1, 3, 2]), 2.5)
    assert.equal(median([7]), 7)
    assert.throws(() => median([]))
  })

  test('the bootstrap is deterministic for a seed and its interval holds the median', () => {
    const ratios = normals(7, 30, 0.95, 0.08)
    const a = bootstrapMedian(ratios, { seed: 11 })
    const b = bootstrapMedian(ratios, { seed: 11 })
    assert.deepEqual(a, b)
    assert.equal(a.median, median(ratios))
    assert.equal(a.resamples, 10_000)
    assert.equal(a.n, 30)
    assert.ok(a.low < a.median && a.median < a.high, JSON.stringify(a))
    const wider = bootstrapMedian(ratios, { seed: 11, level: 0.99 })
    assert.ok(wider.low <= a.low && wider.high >= a.high, 'a 99% interval is at least as wide as a 95% one')
  })

  test('the interval narrows as 1/√n: 16× the rounds, about a quarter of the width', () => {
    const width = (n: number) => {
      const i = bootstrapMedian(normals(3, n, 1, 0.08))
      return i.high - i.low
    }
    const ratio = width(25) / width(400)
    assert.ok(ratio > 2.5 && ratio < 6.5, `width at 25 ÷ width at 400 = ${ratio}`)
  })

  test('resampling groups of rounds widens the interval by how much the groups differ', () => {
    // Four pairs of servers, 15 rounds each; the pairs sit 6% apart from one another.
    const offsets = [0.94, 0.97, 1.0, 1.03]
    const values = offsets.flatMap((offset, g) => normals(20 + g, 15, offset, 0.02))
    const groups = offsets.flatMap((_, g) => Array.from({ length: 15 }, () => g))
    const flat = bootstrapMedian(values)
    const grouped = bootstrapMedian(values, { groups })
    assert.equal(flat.groups, 1)
    assert.equal(grouped.groups, 4)
    assert.equal(grouped.median, flat.median)
    assert.ok(grouped.high - grouped.low > 1.5 * (flat.high - flat.low), `grouped ${JSON.stringify(grouped)}, flat ${JSON.stringify(flat)}`)
    // When the groups agree it errs wide, by about √2 at most: the spread within groups counts twice.
    const alike = bootstrapMedian(normals(30, 60, 1, 0.02), { groups })
    const alikeFlat = bootstrapMedian(normals(30, 60, 1, 0.02))
    const widening = (alike.high - alike.low) / (alikeFlat.high - alikeFlat.low)
    assert.ok(widening >= 1 && widening < 1.7, `${widening}: ${JSON.stringify(alike)} against ${JSON.stringify(alikeFlat)}`)
    assert.throws(() => bootstrapMedian([1, 2], { groups: [0] }))
  })

  test('over many data sets the 95% interval holds the true median about 95% of the time', () => {
    let covered = 0
    const sets = 200
    for (let s = 0; s < sets; s++) {
      const i = bootstrapMedian(normals(1000 + s, 40, 1, 0.08), { resamples: 2000, seed: s })
      if (i.low <= 1 && 1 <= i.high) covered++
    }
    assert.ok(covered >= 0.88 * sets && covered <= 0.995 * sets, `${covered} of ${sets}`)
  })

  test('a known 5% slowdown in noisy rounds is a loss; the same data shifted to 1 is equal', () => {
    const slow = bootstrapMedian(normals(5, 60, 0.95, 0.06))
    const v = verdict(slow)
    assert.equal(v.kind, 'loss')
    assert.equal(v.certain, true)
    assert.equal(v.label, 'LOSS')
    assert.match(v.text, /^LOSS: \d\.\d% slower .*the whole interval is below 1/)
    const same = bootstrapMedian(normals(5, 60, 1, 0.06))
    assert.equal(verdict(same).kind, 'equal')
  })

  test('verdicts by the 0.97 rule and the interval', () => {
    assert.deepEqual(
      [interval(0.96, 0.9, 0.99), interval(0.96, 0.9, 1.01), interval(1.04, 1.01, 1.08), interval(1.04, 0.99, 1.08)].map(
        (i) => verdict(i).label
      ),
      ['LOSS', 'LOSS (not certain)', 'GAIN', 'GAIN (not certain)']
    )
    const equal = verdict(interval(0.99, 0.965, 1.02))
    assert.equal(equal.kind, 'equal')
    assert.equal(equal.label, 'equal ±3.5%')
    assert.match(equal.text, /^equal within ±3\.5% \(median 0\.990×, 95% interval 0\.965–1\.020\)$/)
    const slower = verdict(interval(0.98, 0.975, 0.99))
    assert.equal(slower.kind, 'slower')
    assert.equal(slower.label, 'slower 2.0%')
    assert.equal(verdict(interval(1.02, 1.01, 1.025)).kind, 'faster')
    // Exactly at the rule is not yet a loss: the rule is "below 0.97".
    assert.equal(verdict(interval(0.97, 0.95, 1.01)).kind, 'equal')
  })
})
