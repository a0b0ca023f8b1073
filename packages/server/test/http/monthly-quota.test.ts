import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Customer, Limits, RateLimitStatus } from '@animal-store/contract'
import { assertError } from '../helpers/assertions.ts'
import { startApp, type TestApp } from '../helpers/app.ts'
import { postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { createKeyAs, readAdmin, sendAdmin } from '../helpers/operator-api.ts'

// The monthly quota (DESIGN.md §8): a third window, the UTC calendar month, taken with the minute
// and the day; 429 quota_exceeded with Retry-After to the month's end once it is spent.

/** Two minutes before July: the month rolls over at 00:00 UTC on the 1st. */
const NEAR_JULY = new Date('2026-06-30T23:58:00Z')
const JULY = Date.parse('2026-07-01T00:00:00Z')
const JUNE_SECONDS = 30 * 86_400
const JULY_SECONDS = 31 * 86_400

/** A plan `metered` with these limits, and a key of a customer of its own on it; returns the key's secret and id. */
async function meteredKey(app: TestApp, limits: Limits): Promise<{ key: string; id: string; customerId: string; admin: string }> {
  const admin = await app.operator('admin')
  const plan = await sendAdmin(app, 'POST', '/admin/v1/plans', admin, { id: 'metered', name: 'Metered', limits })
  assert.equal(plan.status, 201, await plan.clone().text())
  const made = await createKeyAs(app, admin, { plan: 'metered', name: 'billing job' })
  return { key: made.key, id: made.id, customerId: made.customerId, admin }
}

async function statuses(apps: TestApp[], key: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await apps[i % apps.length]!.fetch('/v1/pets?limit=1', { key })
      await response.arrayBuffer()
      return response.status
    })
  )
}

const tally = (codes: number[]) => codes.reduce<Record<number, number>>((t, c) => ({ ...t, [c]: (t[c] ?? 0) + 1 }), {})

for (const { backend, skip } of await suiteBackends()) {
  describe(`monthly quota [${backend.name}]`, { skip }, () => {
    test('five 2xx, then 429 quota_exceeded until the month ends; the headers and GET /v1/rate_limit show the month', async (t) => {
      const app = await startApp(t, { backend, admin: true, now: NEAR_JULY })
      const { key, id, customerId, admin } = await meteredKey(app, { perMinute: 60, perDay: 1000, perMonth: 5 })

      const first = await app.fetch('/v1/pets?limit=1', { key })
      assert.equal(first.status, 200)
      assert.equal(first.headers.get('ratelimit-policy'), `"minute";q=60;w=60, "day";q=1000;w=86400, "month";q=5;w=${JUNE_SECONDS}`)
      assert.equal(first.headers.get('ratelimit'), '"minute";r=59;t=60, "day";r=999;t=120, "month";r=4;t=120')
      // X-RateLimit-* describe the window in force: the one with the fewest requests left.
      assert.deepEqual(
        ['limit', 'remaining', 'reset'].map((name) => first.headers.get(`x-ratelimit-${name}`)),
        ['5', '4', String(JULY / 1000)]
      )
      assert.deepEqual(await statuses([app], key, 4), [200, 200, 200, 200])

      const refused = await app.fetch('/v1/pets?limit=1', { key })
      assert.equal(refused.headers.get('retry-after'), '120', 'seconds until 00:00 UTC on July 1')
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0')
      assert.match(refused.headers.get('ratelimit') ?? '', /"month";r=0;t=120$/)
      await assertError(refused, 'quota_exceeded', 'the monthly quota of 5 requests for June 2026 is spent')
      await assertError(
        await app.fetch('/v1/pets', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' }),
        'quota_exceeded'
      )

      const status = await app.fetch('/v1/rate_limit', { key })
      assert.equal(status.status, 200)
      assert.deepEqual(((await status.json()) as RateLimitStatus).limits, [
        { window: 'minute', limit: 60, remaining: 55, reset: Date.parse('2026-06-30T23:59:00Z') / 1000 },
        { window: 'day', limit: 1000, remaining: 995, reset: JULY / 1000 },
        { window: 'month', limit: 5, remaining: 0, reset: JULY / 1000 }
      ])
      assert.deepEqual(
        (await app.services.keys.usage(id)).limits[2],
        { window: 'month', limit: 5, remaining: 0, reset: JULY / 1000 },
        'keys usage'
      )

      // The history counts the refusals as quotaExceeded; reading it takes no quota.
      const usage = await app.fetch('/v1/usage?from=2026-06-30T23:58:00Z&to=2026-06-30T23:59:00Z&granularity=minute', { key })
      assert.deepEqual(await usage.json(), [{ start: '2026-06-30T23:58:00.000Z', allowed: 5, rateLimited: 0, banned: 0, quotaExceeded: 2 }])

      app.clock.set(JULY)
      const july = await app.fetch('/v1/pets?limit=1', { key })
      assert.equal(july.status, 200, 'a new month has its quota again')
      assert.equal(july.headers.get('ratelimit-policy'), `"minute";q=60;w=60, "day";q=1000;w=86400, "month";q=5;w=${JULY_SECONDS}`)
      assert.match(july.headers.get('ratelimit') ?? '', /"month";r=4;t=2678400$/)
      const customer = await readAdmin<Customer>(app, `/admin/v1/customers/${customerId}`, admin)
      assert.deepEqual(
        [customer.limits, customer.usage],
        [
          { perMinute: 60, perDay: 1000, perMonth: 5 },
          { minute: 1, day: 1, month: 1 }
        ]
      )
    })

    test('refusals of a spent month count towards a ban', async (t) => {
      const app = await startApp(t, { backend, admin: true, now: NEAR_JULY })
      const { key } = await meteredKey(app, { perMinute: 3, perDay: 1000, perMonth: 2 })
      const codes: string[] = []
      for (let i = 0; i < 6; i++) {
        const response = await app.fetch('/v1/pets?limit=1', { key })
        const body = (await response.json()) as { code?: string }
        codes.push(response.status === 200 ? 'ok' : body.code!)
      }
      assert.deepEqual(codes, ['ok', 'ok', 'quota_exceeded', 'quota_exceeded', 'quota_exceeded', 'api_key_banned'])
    })

    test("the month's count survives a restart", async (t) => {
      const before = await startApp(t, { backend, admin: true, now: NEAR_JULY })
      const { key } = await meteredKey(before, { perMinute: 60, perDay: 1000, perMonth: 5 })
      assert.deepEqual(await statuses([before], key, 3), [200, 200, 200])
      await before.close()
      const after = await startApp(t, { backend, shareStorageWith: before, now: NEAR_JULY })
      after.clock.advance(30_000)
      assert.deepEqual(tally(await statuses([after], key, 3)), { 200: 2, 429: 1 }, 'three taken before the restart, two left')
    })
  })
}

describe(`monthly quota across instances [${postgresBackend.name}]`, { skip: (await suiteBackends())[1]!.skip }, () => {
  test('exact across two instances: 5 of 20 sent to both are admitted', async (t) => {
    const a = await startApp(t, { backend: postgresBackend, admin: true, now: NEAR_JULY })
    const b = await startApp(t, { shareStorageWith: a, now: NEAR_JULY })
    const { key } = await meteredKey(a, { perMinute: 100, perDay: 1000, perMonth: 5 })
    assert.deepEqual(tally(await statuses([a, b], key, 20)), { 200: 5, 429: 15 })
    const refused = await b.fetch('/v1/pets?limit=1', { key })
    await assertError(refused, 'quota_exceeded')
  })
})
