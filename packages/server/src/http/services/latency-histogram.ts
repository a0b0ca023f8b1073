import { TwoKeyMap } from '../../base/two-key-map.ts'

/** One method and route's observations. */
export class LatencySeries {
  readonly #bounds: readonly number[]
  /** The series' labels, rendered once. */
  readonly labels: string
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: number[]
  sum = 0

  constructor(bounds: readonly number[], labels: string) {
    this.#bounds = bounds
    this.labels = labels
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(seconds: number): void {
    let bucket = 0
    while (bucket < this.#bounds.length && seconds > this.#bounds[bucket]!) bucket++
    this.counts[bucket]!++
    this.sum += seconds
  }
}

const escapeLabel = (value: string) => value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))

/**
 * The request latency histogram by method and route, in Prometheus text format. Kept by
 * hand because prom-client sorts and hashes the label set on every observation, which cost
 * more than the rest of a cached request's bookkeeping; here an observation is a map
 * lookup and two additions. Methods and routes are bounded sets (the router's), so are the series.
 */
export class LatencyHistogram {
  readonly #name: string
  readonly #help: string
  readonly #bounds: readonly number[]
  /** By route, then method: an observation looks up the strings it has, and builds none. */
  readonly #series = new TwoKeyMap<string, string, LatencySeries>()

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.#name = name
    this.#help = help
    this.#bounds = bounds
  }

  observe(method: string, route: string, seconds: number): void {
    this.series(method, route).observe(seconds)
  }

  /** The series of a method and route, to observe into without looking it up again. */
  series(method: string, route: string): LatencySeries {
    return this.#series.getOrAdd(route, method, this.#newSeries)
  }

  readonly #newSeries = (route: string, method: string) =>
    new LatencySeries(this.#bounds, `method="${escapeLabel(method)}",route="${escapeLabel(route)}"`)

  render(): string {
    const lines = [`# HELP ${this.#name} ${this.#help}`, `# TYPE ${this.#name} histogram`]
    for (const [, , { labels, counts, sum }] of this.#series.entries()) {
      let cumulative = 0
      this.#bounds.forEach((bound, i) => {
        cumulative += counts[i]!
        lines.push(`${this.#name}_bucket{le="${bound}",${labels}} ${cumulative}`)
      })
      cumulative += counts[this.#bounds.length]!
      lines.push(
        `${this.#name}_bucket{le="+Inf",${labels}} ${cumulative}`,
        `${this.#name}_sum{${labels}} ${sum}`,
        `${this.#name}_count{${labels}} ${cumulative}`
      )
    }
    return `${lines.join('\n')}\n`
  }
}
