interface Series {
  /** The series' labels, rendered once. */
  labels: string
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: number[]
  sum: number
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
  readonly #series = new Map<string, Series>()

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.#name = name
    this.#help = help
    this.#bounds = bounds
  }

  observe(method: string, route: string, seconds: number): void {
    const id = `${method} ${route}`
    let series = this.#series.get(id)
    if (series === undefined) {
      series = {
        labels: `method="${escapeLabel(method)}",route="${escapeLabel(route)}"`,
        counts: new Array<number>(this.#bounds.length + 1).fill(0),
        sum: 0
      }
      this.#series.set(id, series)
    }
    let bucket = 0
    while (bucket < this.#bounds.length && seconds > this.#bounds[bucket]!) bucket++
    series.counts[bucket]!++
    series.sum += seconds
  }

  render(): string {
    const lines = [`# HELP ${this.#name} ${this.#help}`, `# TYPE ${this.#name} histogram`]
    for (const { labels, counts, sum } of this.#series.values()) {
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
