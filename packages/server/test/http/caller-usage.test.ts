import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { UsageBucket } from '@animal-store/contract'
import { assertError } from '../helpers/assertions.ts'
import { startApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'

// GET /v1/usage (getUsage): the caller's customer's history, all its keys summed, read with the
// caller's own key, taking no quota and not counted itself.

const RANGE = '?from=2026-06-15T12:00:00Z&to=2026-06-15T12:02:00Z&granularity=minute'

/** What remains of the minute window, from a response's `RateLimit` field. */
const minuteRemaining = (response: Response) => Number(/"minute";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1])

for (const { backend, skip } of await suiteBackends()) {
  describe(`GET /v1/usage [${backend.name}]`, { skip }, () => {
    test("a customer's keys summed by outcome; no quota taken, not counted, no scope needed", async (t) => {
      const app = await startApp(t, { backend })
      const first = await app.keyWithId({ plan: 'free', perMinute: 3 })
      const customerId = (await app.storage.keys.get(first.id))!.customerId!
      // A read-only key of the same customer, and a key of another customer, whose requests are not counted here.
      const reader = await app.keyWithId({ customerId, scopes: [] })
      const other = await app.keyWithId({ plan: 'free' })
      for (const key of [first.key, first.key, reader.key, reader.key]) await app.fetch('/v1/pets', { key })
      await app.fetch('/v1/pets', { key: other.key })
      // Monthly-quota refusals of both keys (and of the other customer's), as a flush of another instance stores them.
      const refusals = (keyId: string, minuteStart: number, quotaExceeded: number) => ({
        keyId,
        minuteStart,
        allowed: 0,
        rateLimited: 0,
        banned: 0,
        quotaExceeded
      })
      const [noon, next] = [Date.parse('2026-06-15T12:00:00Z'), Date.parse('2026-06-15T12:01:00Z')]
      await app.storage.usage.add([
        refusals(first.id, noon, 2),
        refusals(reader.id, noon, 1),
        refusals(reader.id, next, 4),
        refusals(other.id, noon, 9)
      ])

      const answer = await app.fetch(`/v1/usage${RANGE}`, { key: reader.key })
      assert.equal(answer.status, 200)
      assert.equal(minuteRemaining(answer), 0, 'the rate-limit headers of the window in force')
      const expected: UsageBucket[] = [
        // Three allowed (one of them refused 403 for its scope after the limiter), the fourth rate limited.
        { start: '2026-06-15T12:00:00.000Z', allowed: 3, rateLimited: 1, banned: 0, quotaExceeded: 3 },
        { start: '2026-06-15T12:01:00.000Z', allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 4 }
      ]
      assert.deepEqual(await answer.json(), expected)
      const again = await app.fetch(`/v1/usage${RANGE}`, { key: first.key })
      assert.deepEqual(await again.json(), expected, 'reading it twice counted nothing')
      assert.equal(minuteRemaining(again), 0)
    })

    test('401 without a valid key; a bad range is 400 naming the parameter', async (t) => {
      const app = await startApp(t, { backend })
      await assertError(await app.fetch(`/v1/usage${RANGE}`, { key: null }), 'unauthorized')
      const key = await app.key({ plan: 'free' })
      await assertError(await app.fetch('/v1/usage?from=yesterday', { key }), 'validation_failed', 'from')
      await assertError(await app.fetch('/v1/usage?granularity=week', { key }), 'validation_failed', 'granularity')
      await assertError(
        await app.fetch('/v1/usage?from=2026-06-15T12:00:00Z&to=2026-06-15T11:00:00Z', { key }),
        'validation_failed',
        'from'
      )
    })
  })
}
