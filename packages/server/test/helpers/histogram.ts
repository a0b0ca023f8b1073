import assert from 'node:assert/strict'

/** One series of a Prometheus histogram as scraped: its buckets in the order given, `_sum` and `_count`. */
export interface HistogramSeries {
  /** `[le, cumulative count]`, `le` as written (`+Inf` last). */
  buckets: Array<[string, number]>
  sum: number
  count: number
}

const SAMPLE = /^(\w+)\{(.*)\} (\S+)$/
const bound = (le: string) => (le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le))

/**
 * The series of histogram `name` whose labels (other than `le`) are exactly `labels`, read from
 * the text format; an empty series (no bucket, sum or count 0) when the text has none yet.
 */
export function histogramSeries(text: string, name: string, labels: Record<string, string>): HistogramSeries {
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}=${value}`)
    .sort()
    .join(',')
  const series: HistogramSeries = { buckets: [], sum: 0, count: 0 }
  let sums = 0
  let counts = 0
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line)
    if (match === null || !match[1]!.startsWith(`${name}_`)) continue
    let le: string | undefined
    const others: string[] = []
    for (const [, label, value] of match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (label === 'le') le = value
      else others.push(`${label}=${value}`)
    }
    if (others.sort().join(',') !== wanted) continue
    const value = Number(match[3])
    if (match[1] === `${name}_bucket`) {
      assert.ok(le !== undefined, `a bucket without le: ${line}`)
      series.buckets.push([le, value])
    } else if (match[1] === `${name}_sum`) {
      series.sum = value
      sums++
    } else if (match[1] === `${name}_count`) {
      series.count = value
      counts++
    }
  }
  assert.ok(sums <= 1 && counts <= 1, `one _sum and one _count for ${name}{${wanted}}`)
  return series
}

/**
 * What the text format asks of a histogram series: bounds in increasing order ending at `+Inf`,
 * cumulative (never decreasing) counts, `+Inf` equal to `_count`, a finite `_sum` that is not
 * negative (every observation here is a latency).
 */
export function assertWellFormed(series: HistogramSeries, what: string): void {
  const { buckets, sum, count } = series
  assert.ok(buckets.length >= 2, `${what}: buckets, +Inf included (${JSON.stringify(buckets)})`)
  assert.equal(buckets.at(-1)![0], '+Inf', `${what}: the last bucket is +Inf`)
  for (let i = 1; i < buckets.length; i++) {
    const [le, cumulative] = buckets[i]!
    const [previousLe, previous] = buckets[i - 1]!
    assert.ok(bound(le) > bound(previousLe), `${what}: bounds increase (${previousLe} then ${le})`)
    assert.ok(cumulative >= previous, `${what}: buckets are cumulative (le=${previousLe} ${previous}, le=${le} ${cumulative})`)
  }
  assert.equal(buckets.at(-1)![1], count, `${what}: the +Inf bucket equals _count`)
  assert.ok(Number.isFinite(sum) && sum >= 0, `${what}: _sum ${sum} is a non-negative number`)
}

/**
 * Between two scrapes of the same series, `requests` more observations were made, each a
 * latency that lay within `wallSeconds` of the caller's own time spent on them, one at a time:
 * `_count` and `+Inf` grew by exactly `requests`, no bucket shrank, and `_sum` grew by more than
 * nothing and no more than that time (a sum in milliseconds, or of anything else, would not fit).
 */
export function assertObserved(before: HistogramSeries, after: HistogramSeries, requests: number, wallSeconds: number, what: string): void {
  assertWellFormed(after, what)
  assert.equal(after.count - before.count, requests, `${what}: _count grew by the ${requests} requests made`)
  if (before.buckets.length > 0) {
    assert.deepEqual(
      after.buckets.map(([le]) => le),
      before.buckets.map(([le]) => le),
      `${what}: the same bounds in both scrapes`
    )
    after.buckets.forEach(([le, cumulative], i) =>
      assert.ok(cumulative >= before.buckets[i]![1], `${what}: bucket le=${le} went down from ${before.buckets[i]![1]} to ${cumulative}`)
    )
  }
  const grown = after.sum - before.sum
  assert.ok(grown > 0, `${what}: _sum grew (by ${grown}) with ${requests} latencies`)
  assert.ok(grown <= wallSeconds, `${what}: _sum grew by ${grown} s, more than the ${wallSeconds} s the requests took end to end`)
}
