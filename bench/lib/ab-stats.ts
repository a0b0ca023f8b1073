// The statistics of an A/B over rounds: the median of the per-round ratios, its bootstrap
// interval (resampling rounds), and the verdict by the project's rule that a median below
// 0.97x is a loss.

/** A seeded generator of uniform numbers in [0, 1) (mulberry32): the same seed, the same interval. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values')
  return sortedQuantile(
    [...values].sort((a, b) => a - b),
    0.5
  )
}

export interface Interval {
  median: number
  /** The bootstrap percentile interval of the median. */
  low: number
  high: number
  /** Its confidence, e.g. 0.95. */
  level: number
  resamples: number
  n: number
  /** How many groups the bootstrap resampled first (1: the values alone). */
  groups: number
}

/**
 * The median of `values` and a percentile bootstrap interval for it: `resamples` times, draw a
 * sample like the data with replacement and take its median; the interval is the (1 − level)/2
 * and (1 + level)/2 quantiles of those medians. With `groups` (one label per value: here the pair
 * of servers a round ran on), each draw is two-stage: as many groups as there are, with
 * replacement, then from each drawn group as many of its values as it has, with replacement. So
 * the interval also carries how much the groups differ, which resampling single values would take
 * for certainty. It errs wide: drawing values within groups counts their spread a second time
 * (when the groups agree, the interval is up to ~1.4× as wide as without groups); drawing whole
 * groups alone would err narrow with a handful of them.
 */
export function bootstrapMedian(
  values: readonly number[],
  options: { resamples?: number; level?: number; seed?: number; groups?: readonly number[] } = {}
): Interval {
  const { resamples = 10_000, level = 0.95, seed = 1, groups } = options
  const n = values.length
  if (n === 0) throw new Error('bootstrap of no values')
  if (groups !== undefined && groups.length !== n) throw new Error('bootstrap: one group per value')
  const clusters = [...Map.groupBy(values.keys(), (i) => groups?.[i] ?? 0).values()].map((members) => members.map((i) => values[i]!))
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const sample = new Float64Array(clusters.length * Math.max(...clusters.map((c) => c.length)))
  const medians = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) {
    let size = 0
    for (let c = 0; c < clusters.length; c++) {
      const cluster = pick(clusters)
      for (let i = 0; i < cluster.length; i++) sample[size++] = pick(cluster)
    }
    medians[r] = sortedQuantile(sample.subarray(0, size).sort(), 0.5)
  }
  medians.sort()
  return {
    median: median(values),
    low: sortedQuantile(medians, (1 - level) / 2),
    high: sortedQuantile(medians, (1 + level) / 2),
    level,
    resamples,
    n,
    groups: clusters.length
  }
}

/** Below this median speed ratio (now ÷ before) a change is a loss; above its inverse, a gain. */
export const LOSS_BELOW = 0.97

type VerdictKind = 'loss' | 'gain' | 'equal' | 'slower' | 'faster'

export interface AbVerdict {
  kind: VerdictKind
  /** For a loss or a gain: whether the whole interval lies on that side of 1. */
  certain: boolean
  /** A few words for a table: `LOSS`, `LOSS (not certain)`, `equal ±2.1%`, `slower 1.5%`. */
  label: string
  /** One line: the verdict and why. */
  text: string
}

const pct = (ratio: number) => `${(Math.abs(ratio - 1) * 100).toFixed(1)}%`

/**
 * The verdict on a speed ratio (now ÷ before: below 1 is slower now), in this order:
 * - `loss`: the median is below 0.97 (the project's rule); certain when the whole interval is below 1;
 * - `gain`: the median is above 1 / 0.97; certain when the whole interval is above 1;
 * - `equal`: the interval contains 1: equal within ±X%, X the interval's farther end from 1;
 * - `slower` / `faster`: the interval excludes 1 but the median is within the 0.97 rule: a real
 *   difference smaller than the rule counts.
 */
export function verdict(interval: Interval): AbVerdict {
  const { median: m, low, high } = interval
  const range = `median ${m.toFixed(3)}×, ${Math.round(interval.level * 100)}% interval ${low.toFixed(3)}–${high.toFixed(3)}`
  const containsOne = low <= 1 && high >= 1
  if (m < LOSS_BELOW || m > 1 / LOSS_BELOW) {
    const loss = m < LOSS_BELOW
    const certain = !containsOne
    const word = loss ? 'LOSS' : 'GAIN'
    const sure = certain
      ? `the whole interval is ${loss ? 'below' : 'above'} 1`
      : 'not certain: the interval contains 1, more rounds would tell'
    return {
      kind: loss ? 'loss' : 'gain',
      certain,
      label: certain ? word : `${word} (not certain)`,
      text: `${word}: ${pct(m)} ${loss ? 'slower' : 'faster'} (${range}; ${loss ? `below ${LOSS_BELOW}` : `above 1/${LOSS_BELOW}`}×; ${sure})`
    }
  }
  if (containsOne) {
    const within = pct(Math.abs(low - 1) > Math.abs(high - 1) ? low : high)
    return { kind: 'equal', certain: false, label: `equal ±${within}`, text: `equal within ±${within} (${range})` }
  }
  const slower = high < 1
  return {
    kind: slower ? 'slower' : 'faster',
    certain: true,
    label: `${slower ? 'slower' : 'faster'} ${pct(m)}`,
    text: `${slower ? 'slower' : 'faster'} by ${pct(m)}, within the ${LOSS_BELOW}× rule (${range})`
  }
}
