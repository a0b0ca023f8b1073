import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { GRANULARITIES, type Granularity } from '@animal-store/contract'
import { ManualClock } from '../../src/base/clock.ts'
import { keptSince, topKeysSpans } from '../../src/domain/usage/range.ts'
import { UsageService } from '../../src/domain/usage/service.ts'
import type { UsageDelta, UsageRow, UsageStore } from '../../src/storage/usage/types.ts'
import { openStore, suiteBackends } from '../helpers/backends.ts'

// The usage store's reads over several spans (top keys) and its retention; usage-store.test.ts
// covers what flushes add up to.

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
const NOW = Date.parse('2026-06-15T12:00:10Z')
/** Every bucket ever: a span that reads all rows of a granularity. */
const ALL = { from: 0, to: Date.parse('2100-01-01T00:00:00Z') }

async function keyRows(store: UsageStore, keyId: string, granularity: Granularity): Promise<UsageRow[]> {
  return store.keyBuckets(keyId, { granularity, ...ALL })
}

const starts = (rows: UsageRow[]) => rows.map((row) => new Date(row.start).toISOString())

for (const { backend, skip } of await suiteBackends()) {
  describe(`usage store: top keys and retention [${backend.name}]`, { skip }, () => {
    test('top keys: summed over spans, most first, ties by key id bytewise, keys with none left out', async (t) => {
      const { storage } = await openStore(t, backend)
      const store = storage.usage
      const minute = (iso: string) => Date.parse(iso)
      const delta = (keyId: string, at: string, allowed: number, rateLimited = 0, banned = 0, quotaExceeded = 0): UsageDelta => ({
        keyId,
        minuteStart: minute(at),
        allowed,
        rateLimited,
        banned,
        quotaExceeded
      })
      await store.add([
        delta('key_a', '2026-06-13T22:30:00Z', 5),
        delta('key_a', '2026-06-14T10:00:00Z', 5, 1),
        delta('key_B', '2026-06-15T01:15:00Z', 10),
        delta('key_c', '2026-06-14T10:00:00Z', 0, 4, 3),
        // Refused 8 times in all: first by refusals only if quota_exceeded counts among them.
        delta('key_e', '2026-06-14T10:00:00Z', 0, 2, 0, 6),
        delta('key_d', '2026-06-15T01:16:00Z', 99),
        delta('key_d', '2026-06-13T22:29:00Z', 99)
      ])
      const spans = topKeysSpans({ from: minute('2026-06-13T22:30:00Z'), to: minute('2026-06-15T01:15:30Z') }, NOW)
      assert.equal(spans.length, 5, 'minutes, hours, a day, hours, minutes')
      assert.deepEqual(await store.topKeys(spans, 'allowed', 10), [
        { keyId: 'key_B', allowed: 10, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { keyId: 'key_a', allowed: 10, rateLimited: 1, banned: 0, quotaExceeded: 0 }
      ])
      assert.deepEqual(await store.topKeys(spans, 'refused', 10), [
        { keyId: 'key_e', allowed: 0, rateLimited: 2, banned: 0, quotaExceeded: 6 },
        { keyId: 'key_c', allowed: 0, rateLimited: 4, banned: 3, quotaExceeded: 0 },
        { keyId: 'key_a', allowed: 10, rateLimited: 1, banned: 0, quotaExceeded: 0 }
      ])
      assert.deepEqual(
        (await store.topKeys(spans, 'allowed', 1)).map((row) => row.keyId),
        ['key_B']
      )
    })

    test('pruning removes exactly the buckets past retention, in batches; the last use outlives them', async (t) => {
      const { storage } = await openStore(t, backend)
      const store = storage.usage
      const clock = new ManualClock(NOW)
      const since = Object.fromEntries(GRANULARITIES.map((g) => [g, keptSince(g, NOW)])) as Record<Granularity, number>
      const one = (keyId: string, minuteStart: number): UsageDelta => ({
        keyId,
        minuteStart,
        allowed: 1,
        rateLimited: 0,
        banned: 0,
        quotaExceeded: 0
      })
      await store.add([
        // Minutes: three past retention, two kept (the oldest kept bucket, and now's).
        one('key_k', since.minute - 3 * MINUTE),
        one('key_k', since.minute - 2 * MINUTE),
        one('key_k', since.minute - MINUTE),
        one('key_k', since.minute),
        one('key_k', NOW - (NOW % MINUTE)),
        // An hour past retention and the oldest kept one; a day past retention and the oldest kept one.
        one('key_k', since.hour - HOUR),
        one('key_k', since.hour),
        one('key_old', since.day - DAY),
        one('key_old', since.day)
      ])
      // One statement deletes at most `limit` key rows and `limit` total rows.
      assert.equal(await store.prune('minute', since.minute, 1), 2)
      const service = new UsageService(store, clock, { flush: async () => {}, pruneBatchRows: 2 })
      clock.advance(20_000) // Still the same minute, hour and day: the same rows are past retention.
      // Left past retention: minutes 2 + 2 (hour) + 2 (days) = 6, hours 1 + 2 (days) = 3, days 1; each with its total row.
      assert.equal(await service.prune(), 2 * (6 + 3 + 1))
      assert.equal(await service.prune(), 0, 'nothing left to prune')

      const kept = async (keyId: string, granularity: Granularity) => starts(await keyRows(store, keyId, granularity))
      assert.deepEqual(await kept('key_k', 'minute'), ['2026-06-13T12:00:00.000Z', '2026-06-15T12:00:00.000Z'])
      assert.deepEqual(await kept('key_k', 'hour'), [
        '2026-03-17T12:00:00.000Z',
        '2026-06-13T11:00:00.000Z',
        '2026-06-13T12:00:00.000Z',
        '2026-06-15T12:00:00.000Z'
      ])
      assert.deepEqual(await kept('key_old', 'minute'), [])
      assert.deepEqual(await kept('key_old', 'hour'), [])
      assert.deepEqual(await kept('key_old', 'day'), ['2025-05-11T00:00:00.000Z'])
      assert.deepEqual(starts(await store.totalBuckets({ granularity: 'minute', ...ALL })), [
        '2026-06-13T12:00:00.000Z',
        '2026-06-15T12:00:00.000Z'
      ])
      assert.deepEqual(starts(await store.totalBuckets({ granularity: 'day', ...ALL }))[0], '2025-05-11T00:00:00.000Z')
      assert.deepEqual(
        await store.lastUsed(['key_k', 'key_old']),
        new Map([
          ['key_k', NOW - (NOW % MINUTE)],
          ['key_old', since.day]
        ])
      )
    })
  })
}
