import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { FallbackCounterStore } from '../../src/limits/fallback.ts'
import { RedisCounterStore } from '../../src/limits/redis/counter-store.ts'
import type { CounterStore } from '../../src/limits/types.ts'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp, type TestAppOptions } from '../helpers/app.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from '../helpers/redis.ts'

// 2026-06-15T12:00:10Z: 50 s before the end of the minute, 43190 s before midnight.
const START = new Date('2026-06-15T12:00:10Z')
const MINUTE_END_S = Date.parse('2026-06-15T12:01:00Z') / 1000
const MIDNIGHT_S = Date.parse('2026-06-16T00:00:00Z') / 1000

interface LimitStore {
  name: string
  skip: string | false
  env: (t: TestContext) => Record<string, string>
}

const redisReason = await redisUnavailable()
if (redisReason !== undefined && process.env.CI === 'true') throw new Error(`Redis must be reachable under CI=true: ${redisReason}`)
if (redisReason !== undefined) process.stderr.write(`\n!!! SKIPPING the Redis rate-limit suite: ${redisReason}\n\n`)

const STORES: LimitStore[] = [
  { name: 'embedded', skip: false, env: () => ({}) },
  { name: 'redis', skip: redisReason ?? false, env: (t) => ({ REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }) }
]

function header(response: Response, name: string): string {
  const value = response.headers.get(name)
  assert.ok(value !== null, `${name} is present (status ${response.status})`)
  return value
}

function windowsOf(response: Response): { minute: { r: number; t: number }; day: { r: number; t: number } } {
  const match = /^"minute";r=(\d+);t=(\d+), "day";r=(\d+);t=(\d+)$/.exec(header(response, 'ratelimit'))
  assert.ok(match, header(response, 'ratelimit'))
  return { minute: { r: Number(match[1]), t: Number(match[2]) }, day: { r: Number(match[3]), t: Number(match[4]) } }
}

/** The five rate-limit fields, in the exact syntax of DESIGN §3. */
function assertRateLimitHeaders(response: Response, perMinute = 60, perDay = 1000): void {
  assert.match(header(response, 'x-ratelimit-limit'), /^\d+$/)
  assert.match(header(response, 'x-ratelimit-remaining'), /^\d+$/)
  assert.match(header(response, 'x-ratelimit-reset'), /^\d{10}$/)
  assert.equal(header(response, 'ratelimit-policy'), `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`)
  windowsOf(response)
}

for (const store of STORES) {
  describe(`rate limits [${store.name}]`, { skip: store.skip }, () => {
    const start = (t: TestContext, options: TestAppOptions = {}) =>
      startApp(t, { now: START, ...options, env: { ...store.env(t), ...options.env } })

    test(
      'a Free key: exactly 60 in a minute, Remaining 59..0, Reset at the end of the UTC minute, then 429; ' + 'the next minute passes',
      async (t) => {
        const app = await start(t)
        const key = await app.key({ plan: 'free' })
        for (let i = 0; i < 60; i++) {
          const response = await app.fetch('/v1/pets', { key })
          assert.equal(response.status, 200)
          assert.equal(header(response, 'x-ratelimit-limit'), '60')
          assert.equal(header(response, 'x-ratelimit-remaining'), String(59 - i))
          assert.equal(header(response, 'x-ratelimit-reset'), String(MINUTE_END_S))
          assertRateLimitHeaders(response)
          assert.deepEqual(windowsOf(response), { minute: { r: 59 - i, t: 50 }, day: { r: 999 - i, t: 43190 } })
        }
        const refused = await app.fetch('/v1/pets', { key })
        assert.equal(header(refused, 'retry-after'), '50')
        assert.equal(header(refused, 'x-ratelimit-remaining'), '0')
        assert.equal(header(refused, 'x-ratelimit-limit'), '60')
        assert.equal(header(refused, 'x-ratelimit-reset'), String(MINUTE_END_S))
        assertRateLimitHeaders(refused)
        await assertError(refused, 'rate_limited', 'per minute')
        app.clock.advance(49_500)
        const stillRefused = await app.fetch('/v1/pets', { key })
        assert.equal(header(stillRefused, 'retry-after'), '1', 'Retry-After rounds up and is at least 1')
        await assertError(stillRefused, 'rate_limited')
        app.clock.set(new Date('2026-06-15T12:01:00Z'))
        const next = await app.fetch('/v1/pets', { key })
        assert.equal(next.status, 200)
        assert.equal(header(next, 'x-ratelimit-remaining'), '59')
        assert.deepEqual(windowsOf(next).day, { r: 939, t: 43140 }, 'refused requests took no day quota')
      }
    )

    test('day window: an enterprise key with per-day 50 is refused at the 51st with Limit 50 and Reset at midnight UTC', async (t) => {
      const app = await start(t)
      const key = await app.key({ plan: 'enterprise', perMinute: 1000, perDay: 50 })
      for (let i = 0; i < 50; i++) {
        const response = await app.fetch('/v1/pets', { key })
        assert.equal(response.status, 200)
        assert.equal(header(response, 'x-ratelimit-limit'), '50', 'the day window has fewer remaining')
        assert.equal(header(response, 'x-ratelimit-reset'), String(MIDNIGHT_S))
      }
      const refused = await app.fetch('/v1/pets', { key })
      assert.equal(header(refused, 'x-ratelimit-limit'), '50')
      assert.equal(header(refused, 'x-ratelimit-remaining'), '0')
      assert.equal(header(refused, 'x-ratelimit-reset'), String(MIDNIGHT_S))
      assert.equal(header(refused, 'retry-after'), '43190')
      assertRateLimitHeaders(refused, 1000, 50)
      await assertError(refused, 'rate_limited', 'per day')
      // A new minute does not help, and the refusal took nothing from the minute window.
      app.clock.set(new Date('2026-06-15T12:05:00Z'))
      const later = await app.fetch('/v1/pets', { key })
      assert.equal(later.status, 429)
      assert.equal(windowsOf(later).minute.r, 1000)
      app.clock.set(new Date('2026-06-16T00:00:00Z'))
      assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
    })

    test('200 simultaneous requests on a fresh Free key admit exactly 60', async (t) => {
      const app = await start(t)
      const key = await app.key({ plan: 'free' })
      const statuses = await Promise.all(
        Array.from({ length: 200 }, () =>
          app.fetch('/v1/pets', { key }).then(async (r) => {
            await r.arrayBuffer()
            return r.status
          })
        )
      )
      assert.equal(statuses.filter((s) => s === 200).length, 60)
      assert.equal(statuses.filter((s) => s === 429).length, 140)
      const usage = windowsOf(await app.fetch('/v1/pets', { key }))
      assert.equal(usage.day.r, 940, 'exactly 60 taken from the day, none counted twice')
    })

    test(
      'the ban: refusals 1..60 are rate_limited, the 61st is api_key_banned; ' + 'bans take no quota and end after RATE_LIMIT_BAN_SECONDS',
      async (t) => {
        const app = await start(t)
        const key = await app.key({ plan: 'free' })
        for (let i = 0; i < 60; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
        for (let i = 1; i <= 60; i++) await assertError(await app.fetch('/v1/pets', { key }), 'rate_limited')
        const banned = await app.fetch('/v1/pets', { key })
        assert.equal(header(banned, 'retry-after'), '900')
        assertRateLimitHeaders(banned)
        await assertError(banned, 'api_key_banned', 'banned until')
        app.clock.set(new Date('2026-06-15T12:02:00Z'))
        const during = await app.fetch('/v1/pets', { key })
        assert.equal(header(during, 'retry-after'), String(900 - 110))
        assert.equal(windowsOf(during).minute.r, 60, 'a request during a ban takes no quota')
        await assertError(during, 'api_key_banned')
        const metrics = await (await app.fetch('/metrics', { key: null })).text()
        assert.match(metrics, /rate_limit_bans_started_total\{plan="free"\} 1/)
        assert.match(metrics, /rate_limit_bans_active\{plan="free"\} 1/)
        assert.doesNotMatch(metrics, /key_id|key_[0-9A-Za-z]{8}/, 'no series names a key')
        assert.match(metrics, /rate_limit_decisions_total\{plan="free",outcome="rate_limited",window="minute"\} 60/)
        app.clock.set(new Date(START.getTime() + 900_000))
        const after = await app.fetch('/v1/pets', { key })
        assert.equal(after.status, 200)
        assert.equal(windowsOf(after).day.r, 939)
      }
    )

    test('RATE_LIMIT_BAN_SECONDS sets the ban length; another key is unaffected', async (t) => {
      const app = await start(t, { env: { RATE_LIMIT_BAN_SECONDS: '30' } })
      const key = await app.key({ plan: 'enterprise', perMinute: 2, perDay: 100 })
      const other = await app.key({ plan: 'enterprise', perMinute: 2, perDay: 100 })
      for (let i = 0; i < 2; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      for (let i = 0; i < 2; i++) await assertError(await app.fetch('/v1/pets', { key }), 'rate_limited')
      const banned = await app.fetch('/v1/pets', { key })
      assert.equal(header(banned, 'retry-after'), '30')
      await assertError(banned, 'api_key_banned')
      assert.equal((await app.fetch('/v1/pets', { key: other })).status, 200)
    })

    test('headers on every /v1 response: 200, 201, 400, 401, 404, 405, 410, 413, 415, 429, 500', async (t) => {
      const app = await start(t)
      const key = await app.key({ plan: 'pro' })
      const responses: Response[] = [
        await app.fetch('/v1/pets', { key }),
        await postJson(app, '/v1/pets', { name: 'n', categoryId: 1 }, { key }),
        await postJson(app, '/v1/pets', { name: '' }, { key }),
        await app.fetch('/v1/pets', { key: null }),
        await app.fetch('/v1/pets/424242', { key }),
        await app.fetch('/v1/nowhere', { key }),
        await app.fetch('/v1/pets', { key, method: 'DELETE' }),
        await postJson(app, '/v1/pets', 'x'.repeat(20_000), { key }),
        await app.fetch('/v1/pets', { key, method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }),
        await app.fetch('/v1/openapi.json', { key: null })
      ]
      const original = app.storage.pets.page.bind(app.storage.pets)
      app.storage.pets.page = async () => {
        throw new Error('boom')
      }
      responses.push(await app.fetch('/v1/pets', { key }))
      app.storage.pets.page = original
      const exhausted = await app.key({ plan: 'enterprise', perMinute: 1, perDay: 10 })
      await app.fetch('/v1/pets', { key: exhausted })
      responses.push(await app.fetch('/v1/pets', { key: exhausted }))
      app.clock.set(new Date('2030-12-05T00:00:00Z'))
      responses.push(await app.fetch('/v1/pets/1', { key }))
      assert.deepEqual(
        responses.map((r) => r.status),
        [200, 201, 400, 401, 404, 404, 405, 413, 415, 200, 500, 429, 410]
      )
      for (const response of responses) {
        if (response.url.endsWith('/v1/pets') && response.status === 429) assertRateLimitHeaders(response, 1, 10)
        else if (response.status === 401 || response.url.endsWith('openapi.json')) assertRateLimitHeaders(response, 60, 1000)
        else assertRateLimitHeaders(response, 300, 10000)
        await response.arrayBuffer()
      }
      assert.equal((await app.fetch('/healthz', { key: null })).headers.get('ratelimit'), null, 'outside /v1 there are no rate limits')
    })

    test('requests without a valid key are limited per address at the Free numbers', async (t) => {
      const app = await start(t)
      for (let i = 0; i < 60; i++) {
        const response = await app.fetch('/v1/pets', { headers: { authorization: 'Bearer as_live_guess' } })
        assert.equal(response.status, 401)
        assert.equal(header(response, 'x-ratelimit-remaining'), String(59 - i))
      }
      await assertError(await app.fetch('/v1/pets', { key: null }), 'rate_limited')
      await assertError(await app.fetch('/v1/openapi.json', { key: null }), 'rate_limited')
      assert.equal((await app.fetch('/v1/pets', { key: await app.key() })).status, 200, 'a valid key has its own quota')
      for (let i = 0; i < 100; i++) await assertError(await app.fetch('/v1/pets', { key: null }), 'rate_limited', 'per minute')
    })

    test('TRUST_PROXY decides whether X-Forwarded-For names the client', async (t) => {
      const trusting = await start(t, { env: { TRUST_PROXY: '1' } })
      for (let i = 0; i < 60; i++) await trusting.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': '203.0.113.7' } })
      assert.equal((await trusting.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': '203.0.113.7' } })).status, 429)
      assert.equal((await trusting.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': '203.0.113.8' } })).status, 401)
      const direct = await start(t)
      for (let i = 0; i < 60; i++) await direct.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': `203.0.113.${i}` } })
      assert.equal(
        (await direct.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': '198.51.100.1' } })).status,
        429,
        'untrusted X-Forwarded-For is ignored'
      )
    })
  })
}

/**
 * The counters of one instance on the shared Redis, composed as `serve` composes them (Redis,
 * falling back to this instance's memory), except that a command may take 10 s instead of
 * 500 ms: these tests are about atomicity across instances, not outages, and on a loaded
 * machine a command once outlived 500 ms and the instance counted alone. Each fallback is
 * recorded in `degraded`.
 */
async function sharedCounters(prefix: string, degraded: unknown[]): Promise<CounterStore> {
  const redis = new RedisCounterStore({ url: TEST_REDIS_URL, keyPrefix: prefix, commandTimeoutMs: 10_000 })
  assert.ok(await redis.whenReady(5000), `Redis at ${TEST_REDIS_URL} answers`)
  const events = { degraded: (error: unknown) => degraded.push(error), recovered: () => {} }
  return new FallbackCounterStore(redis, events, { maxAddresses: 100_000 })
}

describe('rate limits across two instances sharing Redis', { skip: redisReason ?? false }, () => {
  test("requests alternating between two apps admit exactly the key's limit in total", async (t) => {
    const prefix = redisPrefix(t)
    const degraded: unknown[] = []
    const instance = async (shareStorageWith?: TestApp) =>
      startApp(t, { now: START, compose: { counters: await sharedCounters(prefix, degraded) }, shareStorageWith })
    const a = await instance()
    const key = await a.key({ plan: 'free' })
    // The second instance shares the key table (same SQLite file) and Redis.
    const b = await instance(a)
    const apps: TestApp[] = [a, b]
    const statuses: number[] = []
    for (let i = 0; i < 70; i++) statuses.push((await apps[i % 2]!.fetch('/v1/pets', { key })).status)
    assert.deepEqual(degraded, [], 'every consume was decided by Redis')
    assert.equal(statuses.filter((s) => s === 200).length, 60)
    assert.deepEqual(statuses.slice(60), Array(10).fill(429))
    const concurrent = await instance(a)
    const fresh = await a.key({ plan: 'free' })
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        [a, b, concurrent][i % 3]!.fetch('/v1/pets', { key: fresh }).then(async (r) => {
          await r.arrayBuffer()
          return r.status
        })
      )
    )
    assert.deepEqual(degraded, [], 'every consume was decided by Redis')
    assert.equal(burst.filter((s) => s === 200).length, 60)
  })
})
