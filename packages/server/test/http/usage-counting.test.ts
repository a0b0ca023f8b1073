import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { UsageBucket } from '@animal-store/contract'
import { UsageBuffer } from '../../src/domain/usage/recorder.ts'
import { startApp } from '../helpers/app.ts'
import { sqliteBackend, suiteBackends } from '../helpers/backends.ts'
import { until } from '../helpers/wait.ts'

const MINUTE = 60_000
const DAY = 86_400_000
// startApp's clock: 10 s into the minute that starts at 12:00.
const NOW = Date.parse('2026-06-15T12:00:10Z')
const LAST_FIVE_MINUTES = { from: NOW - 5 * MINUTE, granularity: 'minute' } as const

/** The buckets with any request, as `start allowed/rateLimited/banned/quotaExceeded`. */
const busy = (buckets: UsageBucket[]) =>
  buckets
    .filter((b) => b.allowed + b.rateLimited + b.banned + b.quotaExceeded > 0)
    .map((b) => `${b.start} ${b.allowed}/${b.rateLimited}/${b.banned}/${b.quotaExceeded}`)

async function codeOf(response: Response): Promise<string> {
  const text = await response.text()
  return response.status === 429 ? (JSON.parse(text) as { code: string }).code : String(response.status)
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`usage history of real requests [${backend.name}]`, { skip }, () => {
    test('a Free key sending 130 requests is counted 60 allowed, 60 rate limited, 10 banned; keyless and rate_limit requests are not', async (t) => {
      const app = await startApp(t, { backend })
      const { key, id } = await app.keyWithId({ plan: 'free' })
      const outcomes = new Map<string, number>()
      for (let i = 0; i < 130; i++) {
        // Allowed whatever the route answers: the first five ask for a pet that does not exist.
        const code = await codeOf(await app.fetch(i < 5 ? '/v1/pets/999' : '/v1/pets', { key }))
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1)
      }
      assert.deepEqual(Object.fromEntries(outcomes), { 404: 5, 200: 55, rate_limited: 60, api_key_banned: 10 })
      // Not outcomes of a key's limiter: the caller's own use, no key, an unknown key.
      assert.equal((await app.fetch('/v1/rate_limit', { key })).status, 200)
      assert.equal((await app.fetch('/v1/pets', { key: null })).status, 401)
      assert.equal((await app.fetch('/v1/pets', { key: `as_live_${'0'.repeat(43)}` })).status, 401)

      // Read through the service, which first stores what this instance counted.
      assert.deepEqual(busy(await app.services.usage.keyUsage(id, LAST_FIVE_MINUTES)), ['2026-06-15T12:00:00.000Z 60/60/10/0'])
      assert.deepEqual(busy(await app.services.usage.allUsage(LAST_FIVE_MINUTES)), ['2026-06-15T12:00:00.000Z 60/60/10/0'])
      assert.deepEqual(await app.services.usage.topKeys({ by: 'refused' }), [
        { keyId: id, allowed: 60, rateLimited: 60, banned: 10, quotaExceeded: 0 }
      ])
      assert.deepEqual(await app.services.usage.lastUsedAt([id]), new Map([[id, '2026-06-15T12:00:00.000Z']]))
    })

    test("quota_exceeded refusals another instance flushed add to this one's counts: per key, in total, by hour and day", async (t) => {
      const app = await startApp(t, { backend })
      const { key, id } = await app.keyWithId({ plan: 'pro' })
      const quiet = await app.keyWithId({ plan: 'pro' })
      for (let i = 0; i < 3; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      // A second instance's buffer counts refusals as its limiter would; both instances' flushes add up in the same rows.
      const other = new UsageBuffer(app.storage.usage, { failed: (error) => assert.fail(String(error)) })
      for (let i = 0; i < 4; i++) other.count(id, 'quotaExceeded', NOW + i)
      other.count(quiet.id, 'quotaExceeded', NOW + 2 * MINUTE)
      await other.flush()

      const usage = app.services.usage
      assert.deepEqual(busy(await usage.keyUsage(id, LAST_FIVE_MINUTES)), ['2026-06-15T12:00:00.000Z 3/0/0/4'])
      const hours = { from: NOW - 2 * 3_600_000, to: NOW + 3_600_000, granularity: 'hour' } as const
      assert.deepEqual(busy(await usage.allUsage(hours)), ['2026-06-15T12:00:00.000Z 3/0/0/5'], 'the hour sums both keys and minutes')
      assert.deepEqual(busy(await usage.keyUsage(id, { from: NOW - DAY, to: NOW + DAY, granularity: 'day' })), [
        '2026-06-15T00:00:00.000Z 3/0/0/4'
      ])
      assert.deepEqual(await usage.topKeys({ by: 'refused', to: NOW + 3 * MINUTE }), [
        { keyId: id, allowed: 3, rateLimited: 0, banned: 0, quotaExceeded: 4 },
        { keyId: quiet.id, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 1 }
      ])
      assert.deepEqual(await usage.lastUsedAt([quiet.id]), new Map([[quiet.id, '2026-06-15T12:02:00.000Z']]))
    })

    test('counts reach the database by themselves, on the flush timer', async (t) => {
      const app = await startApp(t, { backend, compose: { usageFlushIntervalMs: 20 } })
      const { key, id } = await app.keyWithId({ plan: 'pro' })
      for (let i = 0; i < 3; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      const span = { granularity: 'minute', from: NOW - MINUTE, to: NOW + MINUTE } as const
      // The store itself, not the service: a read through the service would flush first.
      await until(async () => (await app.storage.usage.keyBuckets(id, span)).some((row) => row.allowed === 3), {
        timeoutMs: 10_000,
        what: 'three allowed requests in the usage table'
      })
    })
  })
}

describe('usage history across a restart', () => {
  test('closing the services stores the counts; a new process on the same file reads them back', async (t) => {
    // A flush timer that never fires within the test: only the close can store the counts.
    const first = await startApp(t, { backend: sqliteBackend, compose: { usageFlushIntervalMs: 3_600_000 } })
    const { key, id } = await first.keyWithId({ plan: 'free' })
    for (let i = 0; i < 7; i++) assert.equal((await first.fetch('/v1/pets', { key })).status, 200)
    assert.deepEqual(await first.storage.usage.lastUsed([id]), new Map(), 'nothing stored before the close')
    await first.close()

    const second = await startApp(t, { shareStorageWith: first })
    assert.deepEqual(busy(await second.services.usage.keyUsage(id, LAST_FIVE_MINUTES)), ['2026-06-15T12:00:00.000Z 7/0/0/0'])
    assert.deepEqual(await second.services.usage.lastUsedAt([id]), new Map([[id, '2026-06-15T12:00:00.000Z']]))
  })
})
