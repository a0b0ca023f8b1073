import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Histogram, Registry } from 'prom-client'
import { LatencyHistogram } from '../../src/http/services/latency-histogram.ts'

const NAME = 'http_request_duration_seconds'
const HELP = 'HTTP request latency by route'
const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]

/** A sample line's metric name, labels (order aside) and value, so two renderings compare by meaning. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${NAME}_`)) continue
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line)
    assert.ok(match, `a sample line: ${line}`)
    const labels = [...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => `${name}=${value}`).sort()
    const key = `${match[1]}{${labels.join(',')}}`
    assert.equal(found.has(key), false, `one line per sample: ${key}`)
    found.set(key, Number(match[3]))
  }
  return found
}

async function promClientRendering(observations: Array<[string, string, number]>): Promise<string> {
  const registry = new Registry()
  const histogram = new Histogram({ name: NAME, help: HELP, labelNames: ['method', 'route'], buckets: BOUNDS, registers: [registry] })
  for (const [method, route, seconds] of observations) histogram.observe({ method, route }, seconds)
  return registry.metrics()
}

function handKeptRendering(observations: Array<[string, string, number]>): string {
  const histogram = new LatencyHistogram(NAME, HELP, BOUNDS)
  for (const [method, route, seconds] of observations) histogram.observe(method, route, seconds)
  return histogram.render()
}

describe('LatencyHistogram: the same text as prom-client for the same observations', () => {
  // Zero, every bound exactly, values between bounds, and values above the last bound (+Inf only).
  const observations: Array<[string, string, number]> = [
    ['GET', '/v1/pets', 0],
    ...BOUNDS.map((bound): [string, string, number] => ['GET', '/v1/pets', bound]),
    ['GET', '/v1/pets', 0.0007],
    ['GET', '/v1/pets', 0.003],
    ['GET', '/v1/pets', 0.003],
    ['GET', '/v1/pets', 0.3],
    ['GET', '/v1/pets', 1.5],
    ['GET', '/v1/pets', 42],
    ['POST', '/v1/pets', 0.01],
    ['POST', '/v1/pets', 0.0101],
    ['GET', 'unmatched', 7],
    // A label value that needs escaping in the text format.
    ['GET', '/odd"route\\with\nbreaks', 0.002]
  ]

  test('bucket bounds, cumulative counts per bucket, _sum and _count agree sample for sample', async () => {
    const ours = samples(handKeptRendering(observations))
    const reference = samples(await promClientRendering(observations))
    // Four series, each with a line per bound, +Inf, _sum and _count: an empty rendering cannot agree by accident.
    assert.equal(reference.size, 4 * (BOUNDS.length + 3))
    assert.deepEqual(ours, reference)
  })

  test('the HELP and TYPE lines are the same', async () => {
    const heads = (text: string) =>
      text.split('\n').filter((line) => line.startsWith(`# HELP ${NAME} `) || line.startsWith(`# TYPE ${NAME} `))
    assert.deepEqual(heads(handKeptRendering(observations)), heads(await promClientRendering(observations)))
  })

  test('the counts it is compared on are the ones the format asks for', () => {
    const ours = samples(
      handKeptRendering([
        ['GET', '/x', 0.005],
        ['GET', '/x', 0.0051],
        ['GET', '/x', 0],
        ['GET', '/x', 3]
      ])
    )
    const at = (suffix: string, le?: string) =>
      ours.get(`${NAME}_${suffix}{${[...(le === undefined ? [] : [`le=${le}`]), 'method=GET', 'route=/x'].join(',')}}`)
    assert.equal(at('bucket', '0.0005'), 1, 'zero counts in the first bucket')
    assert.equal(at('bucket', '0.005'), 2, 'a value on a bound counts in that bound, cumulatively')
    assert.equal(at('bucket', '0.01'), 3)
    assert.equal(at('bucket', '1'), 3)
    assert.equal(at('bucket', '+Inf'), 4, 'above the last bound counts in +Inf alone')
    assert.equal(at('sum'), 0.005 + 0.0051 + 0 + 3)
    assert.equal(at('count'), 4)
  })
})
