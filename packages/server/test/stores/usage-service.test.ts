import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import type { UsageBucket } from '@animal-store/contract'
import { ManualClock } from '../../src/base/clock.ts'
import { UsageService } from '../../src/domain/usage/service.ts'
import { UsageQueryError } from '../../src/domain/usage/range.ts'
import { UsageBuffer } from '../../src/domain/usage/recorder.ts'
import { openStore, suiteBackends, type Backend } from '../helpers/backends.ts'

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
// 10 s into a minute, so alignment shows.
const NOW = Date.parse('2026-06-15T12:00:10Z')

/** A usage service over a fresh store, read at a test clock, with the recorder that feeds it (never flushed by a timer). */
async function usageAt(t: TestContext, backend: Backend) {
  const { storage } = await openStore(t, backend)
  const clock = new ManualClock(NOW)
  const recorder = new UsageBuffer(storage.usage, { failed: (error) => assert.fail(String(error)) })
  const service = new UsageService(storage.usage, clock, { flush: () => recorder.flush() })
  return { service, recorder, clock }
}

/** The buckets with any request, as `start allowed/rateLimited/banned/quotaExceeded`. */
const busy = (buckets: UsageBucket[]) =>
  buckets
    .filter((b) => b.allowed + b.rateLimited + b.banned + b.quotaExceeded > 0)
    .map((b) => `${b.start} ${b.allowed}/${b.rateLimited}/${b.banned}/${b.quotaExceeded}`)

async function refused(promise: Promise<unknown>, field: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof UsageQueryError, String(error))
    assert.equal(error.field, field)
    assert.match(error.message, message)
    return true
  })
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`usage service [${backend.name}]`, { skip }, () => {
    test('every bucket of the default range, zeros included, oldest first; unflushed counts of this instance included', async (t) => {
      const { service, recorder } = await usageAt(t, backend)
      for (let i = 0; i < 3; i++) recorder.count('key_a', 'allowed', NOW - 10 * MINUTE)
      recorder.count('key_a', 'rateLimited', NOW)
      recorder.count('key_a', 'banned', NOW)
      recorder.count('key_a', 'quotaExceeded', NOW)
      recorder.count('key_b', 'allowed', NOW)
      recorder.count('key_b', 'quotaExceeded', NOW)
      recorder.count('key_a', 'allowed', NOW - 25 * HOUR) // Before the default range.

      const buckets = await service.keyUsage('key_a')
      assert.equal(buckets.length, 1441)
      assert.deepEqual(buckets[0], { start: '2026-06-14T12:00:00.000Z', allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 })
      assert.equal(buckets.at(-1)!.start, '2026-06-15T12:00:00.000Z', 'the current minute is the last bucket')
      buckets.forEach((bucket, i) => assert.equal(Date.parse(bucket.start), Date.parse('2026-06-14T12:00:00Z') + i * MINUTE))
      assert.deepEqual(busy(buckets), ['2026-06-15T11:50:00.000Z 3/0/0/0', '2026-06-15T12:00:00.000Z 0/1/1/1'])
      assert.deepEqual(busy(await service.allUsage()), ['2026-06-15T11:50:00.000Z 3/0/0/0', '2026-06-15T12:00:00.000Z 1/1/1/2'])
      assert.deepEqual(busy(await service.keyUsage('key_never')), [])
      assert.equal((await service.keyUsage('key_never')).length, 1441)
    })

    test('granularity: the finest kept one that fits, or the one asked for; hours and days hold their minutes', async (t) => {
      const { service, recorder } = await usageAt(t, backend)
      recorder.count('key_a', 'allowed', NOW - 3 * DAY)
      recorder.count('key_a', 'allowed', NOW - 3 * DAY + 30 * MINUTE)
      recorder.count('key_a', 'rateLimited', NOW)
      recorder.count('key_a', 'quotaExceeded', NOW - 3 * DAY + 40 * MINUTE)

      const week = await service.keyUsage('key_a', { from: NOW - 7 * DAY })
      assert.equal(week.length, 169, 'minutes are kept 48 hours: a week is answered by hour')
      assert.deepEqual(busy(week), ['2026-06-12T12:00:00.000Z 2/0/0/1', '2026-06-15T12:00:00.000Z 0/1/0/0'])
      const days = await service.keyUsage('key_a', { from: NOW - 7 * DAY, granularity: 'day' })
      assert.deepEqual(
        days.map((b) => b.start),
        ['08', '09', '10', '11', '12', '13', '14', '15'].map((d) => `2026-06-${d}T00:00:00.000Z`)
      )
      assert.deepEqual(busy(days), ['2026-06-12T00:00:00.000Z 2/0/0/1', '2026-06-15T00:00:00.000Z 0/1/0/0'])
      const hour = await service.keyUsage('key_a', { from: NOW - 5 * MINUTE, to: NOW + 5 * MINUTE, granularity: 'hour' })
      assert.deepEqual(hour, [
        { start: '2026-06-15T11:00:00.000Z', allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { start: '2026-06-15T12:00:00.000Z', allowed: 0, rateLimited: 1, banned: 0, quotaExceeded: 0 }
      ])
      assert.equal((await service.allUsage({ from: NOW - 100 * DAY })).length, 101, 'beyond 90 days: by day')
    })

    test('refused ranges and top-keys input: a UsageQueryError naming the field', async (t) => {
      const { service } = await usageAt(t, backend)
      await refused(service.keyUsage('key_a', { from: NOW, to: NOW - 1 }), 'from', /^from must be before to$/)
      await refused(service.allUsage({ from: NOW - 3 * DAY, granularity: 'minute' }), 'from', /48 hours/)
      await refused(service.allUsage({ from: NOW - 401 * DAY }), 'from', /400 days/)
      await refused(service.keyUsage('key_a', { from: NOW - HOUR, to: NOW + 3001 * MINUTE, granularity: 'minute' }), 'to', /at most 3000/)
      await refused(service.topKeys({ by: 'most' as 'allowed' }), 'by', /^by must be one of allowed, refused$/)
      await refused(service.topKeys({ limit: 0 }), 'limit', /^limit must be a whole number from 1 to 100$/)
      await refused(service.topKeys({ limit: 101 }), 'limit', /from 1 to 100/)
      await refused(service.topKeys({ from: NOW + MINUTE }), 'from', /before to/)
    })

    test('top keys over the range and the last use of each key', async (t) => {
      const { service, recorder, clock } = await usageAt(t, backend)
      for (let i = 0; i < 3; i++) recorder.count('key_a', 'allowed', NOW - HOUR)
      recorder.count('key_b', 'allowed', NOW - 2 * HOUR)
      recorder.count('key_b', 'banned', NOW - 2 * HOUR)
      recorder.count('key_c', 'rateLimited', NOW - 25 * HOUR) // Outside the default 24 hours.
      for (let i = 0; i < 3; i++) recorder.count('key_d', 'quotaExceeded', NOW - HOUR)
      assert.deepEqual(await service.topKeys(), [
        { keyId: 'key_a', allowed: 3, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { keyId: 'key_b', allowed: 1, rateLimited: 0, banned: 1, quotaExceeded: 0 }
      ])
      assert.deepEqual(
        (await service.topKeys({ by: 'refused', from: NOW - 2 * DAY })).map((k) => k.keyId),
        ['key_d', 'key_b', 'key_c']
      )
      assert.deepEqual((await service.topKeys({ limit: 1 })).length, 1)
      clock.advance(DAY)
      assert.deepEqual(await service.topKeys({ from: NOW + HOUR }), [], 'none in range')
      assert.deepEqual(
        await service.lastUsedAt(['key_a', 'key_c', 'key_never']),
        new Map([
          ['key_a', '2026-06-15T11:00:00.000Z'],
          ['key_c', '2026-06-14T11:00:00.000Z']
        ])
      )
    })
  })
}
