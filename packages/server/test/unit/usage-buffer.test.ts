import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { UsageBuffer } from '../../src/domain/usage/recorder.ts'
import type { UsageDelta } from '../../src/storage/usage/types.ts'

const MINUTE = 60_000
const NOW = Date.parse('2026-06-15T12:00:10Z')

/** A sink whose adds complete when the test says so, recording what each one was sent. */
function heldSink() {
  const sent: UsageDelta[][] = []
  const release: Array<() => void> = []
  return {
    sent,
    releaseNext: () => release.shift()!(),
    add: (deltas: readonly UsageDelta[]) => {
      sent.push(deltas.map((d) => ({ ...d })))
      return new Promise<void>((resolve) => release.push(resolve))
    }
  }
}

const fail = (error: unknown) => assert.fail(String(error))

describe('usage buffer', () => {
  test('one flush at a time: calls made meanwhile share the next one, which sends what came since', async () => {
    const sink = heldSink()
    const buffer = new UsageBuffer(sink, { failed: fail })
    buffer.count('key_a', 'allowed', NOW)
    const first = buffer.flush()
    buffer.count('key_a', 'allowed', NOW)
    buffer.count('key_a', 'banned', NOW)
    buffer.count('key_a', 'quotaExceeded', NOW)
    const second = buffer.flush()
    const third = buffer.flush()
    assert.equal(second, third, 'calls during a flush share the one queued after it')
    assert.equal(sink.sent.length, 1, 'nothing more is sent while the first flush runs')
    sink.releaseNext()
    await first
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(sink.sent.length, 2)
    sink.releaseNext()
    await second
    const minute = NOW - (NOW % MINUTE)
    assert.deepEqual(sink.sent, [
      [{ keyId: 'key_a', minuteStart: minute, allowed: 1, rateLimited: 0, banned: 0, quotaExceeded: 0 }],
      [{ keyId: 'key_a', minuteStart: minute, allowed: 1, rateLimited: 0, banned: 1, quotaExceeded: 1 }]
    ])
    await buffer.flush()
    assert.equal(sink.sent.length, 2, 'a flush with nothing counted sends nothing')
  })

  test('each minute of a key is its own delta, also when the clock moves back', async () => {
    const sink = heldSink()
    const buffer = new UsageBuffer(sink, { failed: fail })
    buffer.count('key_a', 'allowed', NOW)
    buffer.count('key_a', 'rateLimited', NOW + MINUTE)
    buffer.count('key_a', 'quotaExceeded', NOW + MINUTE + 1)
    buffer.count('key_a', 'allowed', NOW + 49_999) // Still the first minute.
    buffer.count('key_a', 'banned', NOW - MINUTE)
    buffer.count('key_b', 'allowed', NOW)
    const flushed = buffer.flush()
    sink.releaseNext()
    await flushed
    const minute = NOW - (NOW % MINUTE)
    const sorted = sink.sent[0]!.map(
      (d) => `${d.keyId} ${d.minuteStart - minute} ${d.allowed}/${d.rateLimited}/${d.banned}/${d.quotaExceeded}`
    ).sort()
    assert.deepEqual(sorted, ['key_a -60000 0/0/1/0', 'key_a 0 2/0/0/0', 'key_a 60000 0/1/0/1', 'key_b 0 1/0/0/0'])
  })
})
