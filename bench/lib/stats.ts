/** Summary statistics over the rounds of one measurement: the median and its spread. */
export interface Spread {
  median: number
  min: number
  max: number
  /** First and third quartiles (linear interpolation); equal to the median with one round. */
  q1: number
  q3: number
  n: number
}

function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

/** The spread of the finite values given; undefined when there are none. */
export function spread(values: number[]): Spread | undefined {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    n: sorted.length
  }
}
