import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { MemoryCounterStore } from '../../src/limits/memory/counter-store.ts'
import { RedisCounterStore } from '../../src/limits/redis/counter-store.ts'
import type { ConsumeRequest } from '../../src/limits/types.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from '../helpers/redis.ts'

const redisReason = await redisUnavailable()
if (redisReason !== undefined && process.env.CI === 'true') throw new Error(`Redis must be reachable under CI=true: ${redisReason}`)
if (redisReason !== undefined) process.stderr.write(`\n!!! SKIPPING the Redis counter-store tests: ${redisReason}\n\n`)

// 2026-06-15T12:00:58Z: two seconds before a minute ends.
const T0 = Date.parse('2026-06-15T12:00:58Z')
const BAN_MS = 900_000

/** A Redis counter store under a key prefix of this test's own, counting its script calls. */
async function openStore(t: TestContext): Promise<{ store: RedisCounterStore; calls: () => number }> {
  const store = new RedisCounterStore({ url: TEST_REDIS_URL, keyPrefix: redisPrefix(t) })
  t.after(() => store.close())
  assert.ok(await store.whenReady(3000), 'redis is ready')
  let calls = 0
  const send = store.redis.animalStoreConsumeMany.bind(store.redis)
  store.redis.animalStoreConsumeMany = (...args) => {
    calls++
    return send(...args)
  }
  return { store, calls: () => calls }
}

const keyed = (subject: string, perMinute: number, perDay: number, now: number): ConsumeRequest => ({
  subject,
  limits: { perMinute, perDay, perMonth: null },
  now,
  banThreshold: perMinute,
  banMs: BAN_MS
})
const anonymous = (subject: string, now: number): ConsumeRequest => ({
  subject,
  limits: { perMinute: 2, perDay: 1000, perMonth: null },
  now,
  banThreshold: null,
  banMs: BAN_MS
})

/**
 * Interleaved subjects: `a` is refused, then banned in the middle of the turn, and stays
 * banned; `b` runs out of its day; `c` (an address) is refused but never banned; `d` crosses a
 * minute boundary within the turn: a fresh minute follows its refused one, and it is banned there.
 */
function turnOfRequests(): ConsumeRequest[] {
  const requests: ConsumeRequest[] = []
  for (let i = 0; i < 12; i++) {
    const now = T0 + i
    requests.push(keyed('key:a', 3, 1000, now), keyed('key:b', 100, 4, now), anonymous('ip:c', now))
    requests.push(keyed('key:d', 2, 1000, i < 4 ? T0 + 1000 + i : T0 + 2000 + i))
  }
  return requests
}

describe('Redis counter store: the consumes of one turn in one script call', { skip: redisReason ?? false }, () => {
  test('answers each consume exactly as the in-process store does, one after another, with one call', async (t) => {
    const { store, calls } = await openStore(t)
    const requests = turnOfRequests()
    const memory = new MemoryCounterStore()
    const expected = requests.map((request) => memory.consume(request))
    const answered = await Promise.all(requests.map((request) => store.consume(request)))
    assert.deepEqual(answered, expected)
    assert.equal(calls(), 1, 'one script call for the whole turn')
    // The outcomes the sequence was built to reach, so the comparison cannot pass on a trivial sequence.
    const outcomes = (subject: string) =>
      answered
        .filter((_, i) => requests[i]!.subject === subject)
        .map((r) => r.outcome[0])
        .join('')
    assert.equal(outcomes('key:a'), 'aaalllbbbbbb')
    assert.ok(
      answered.some((r) => r.banStarted && r.bannedUntil === T0 + 6 + BAN_MS),
      'a ban started in the middle of the turn'
    )
    assert.equal(outcomes('key:b'), 'aaaallllllll')
    assert.equal(outcomes('ip:c'), 'aallllllllll')
    assert.equal(outcomes('key:d'), 'aallaallbbbb')

    // A later turn sees what this one left, the ban included.
    const later = [keyed('key:a', 3, 1000, T0 + 20), keyed('key:a', 3, 1000, T0 + 21 + BAN_MS)]
    assert.deepEqual(
      await Promise.all(later.map((r) => store.consume(r))),
      later.map((r) => memory.consume(r))
    )
    assert.equal(calls(), 2)
    const after = T0 + 22 + BAN_MS
    assert.deepEqual(await store.usage('key:a', after), await memory.usage('key:a', after))
  })

  test('a turn of more consumes than one call takes is split over several, answered in order', async (t) => {
    const { store, calls } = await openStore(t)
    const requests = Array.from({ length: 600 }, (_, i) => keyed(`key:${i % 7}`, 20, 1000, T0 + Math.floor(i / 10)))
    const memory = new MemoryCounterStore()
    const expected = requests.map((request) => memory.consume(request))
    assert.deepEqual(await Promise.all(requests.map((request) => store.consume(request))), expected)
    assert.ok(expected.some((r) => r.outcome === 'banned') && expected.some((r) => r.outcome === 'allowed'))
    assert.equal(calls(), 3, '600 consumes at 256 per call')
  })
})
