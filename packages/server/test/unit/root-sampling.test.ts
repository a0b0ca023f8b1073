import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ROOT_CONTEXT } from '@opentelemetry/api'
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace'
import { rootDecision } from '../../src/tracing/sampling.ts'

const DRAWS = 20_000

describe('the sampling decision of a root request', () => {
  for (const ratio of [0.1, 0.5]) {
    test(`traceidratio ${ratio}: takes that share, and every id taken is one the SDK's sampler takes`, () => {
      const decide = rootDecision({ name: 'traceidratio', ratio })
      const sdk = new TraceIdRatioBasedSampler(ratio)
      const taken: string[] = []
      for (let i = 0; i < DRAWS; i++) {
        const id = decide()
        if (id !== undefined) taken.push(id)
      }
      // Six standard deviations either side: a wrong share fails, chance does not.
      const sd = Math.sqrt((ratio * (1 - ratio)) / DRAWS)
      assert.ok(Math.abs(taken.length / DRAWS - ratio) < 6 * sd, `took ${taken.length} of ${DRAWS}`)
      for (const id of taken) {
        assert.match(id, /^[0-9a-f]{32}$/)
        const { decision } = sdk.shouldSample(ROOT_CONTEXT, id)
        assert.equal(decision, SamplingDecision.RECORD_AND_SAMPLED, id)
      }
      assert.equal(new Set(taken).size, taken.length, 'no id twice')
      // Each word of an id taken is uniform, the first (made to fit the decision) too: its top bit is set half the time.
      for (const at of [0, 8, 16, 24]) {
        const high = taken.filter((id) => Number.parseInt(id[at]!, 16) >= 8).length / taken.length
        assert.ok(Math.abs(high - 0.5) < 6 * Math.sqrt(0.25 / taken.length), `word at ${at}: top bit set in ${high}`)
      }
    })
  }

  test('ratio 0 takes none, ratio 1 and always_on take all, always_off none', () => {
    const cases = [
      { sampler: { name: 'traceidratio', ratio: 0 }, taken: 0 },
      { sampler: { name: 'traceidratio', ratio: 1 }, taken: 1000 },
      { sampler: { name: 'parentbased_traceidratio', ratio: 1 }, taken: 1000 },
      { sampler: { name: 'always_on', ratio: 1 }, taken: 1000 },
      { sampler: { name: 'always_off', ratio: 1 }, taken: 0 }
    ]
    for (const { sampler, taken } of cases) {
      const decide = rootDecision(sampler)
      let count = 0
      for (let i = 0; i < 1000; i++) if (decide() !== undefined) count++
      assert.equal(count, taken, JSON.stringify(sampler))
    }
  })
})
