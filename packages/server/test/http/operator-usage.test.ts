import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Key, TopCustomer, TopKey, UsageBucket } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { assertOperatorError, readAdmin, sendAdmin } from '../helpers/operator-api.ts'

const MINUTE = 60_000
const HOUR = 3_600_000

/** The buckets with any request, as `start allowed/rateLimited/banned/quotaExceeded`. */
const busy = (buckets: UsageBucket[]) =>
  buckets
    .filter((b) => b.allowed + b.rateLimited + b.banned + b.quotaExceeded > 0)
    .map((b) => `${b.start} ${b.allowed}/${b.rateLimited}/${b.banned}/${b.quotaExceeded}`)
/** A top-keys or top-customers row's counts, in the order of UsageBucket. */
const outcomes = (row: Omit<TopKey, 'key'>) => [row.allowed, row.rateLimited, row.banned, row.quotaExceeded]

/** Sends `n` requests with the key; returns how many were answered with each status or 429 code. */
async function hammer(app: TestApp, key: string, n: number): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {}
  for (let i = 0; i < n; i++) {
    const response = await app.fetch('/v1/pets', { key })
    const outcome = response.status === 429 ? ((await response.json()) as { code: string }).code : String(response.status)
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  }
  return outcomes
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`operator API: usage and bans [${backend.name}]`, { skip }, () => {
    test('a Free key sending 130 requests: usage 60/60/10, a top key by refusals, banned until unbanKey', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const viewer = await app.operator('viewer')
      const admin = await app.operator('admin')
      const { key, id } = await app.keyWithId({ plan: 'free', name: 'scraper' })
      const calm = await app.keyWithId({ plan: 'pro', name: 'calm' })
      assert.deepEqual(await hammer(app, key, 130), { 200: 60, rate_limited: 60, api_key_banned: 10 })
      await hammer(app, calm.key, 2)

      const minutes = await readAdmin<UsageBucket[]>(app, `/admin/v1/keys/${id}/usage?from=2026-06-15T11:58:00Z&granularity=minute`, viewer)
      assert.equal(minutes.length, 3, 'every bucket of the range, empty ones included')
      assert.deepEqual(busy(minutes), ['2026-06-15T12:00:00.000Z 60/60/10/0'])
      assert.deepEqual(busy(await readAdmin<UsageBucket[]>(app, '/admin/v1/usage?granularity=hour', viewer)), [
        '2026-06-15T12:00:00.000Z 62/60/10/0'
      ])
      const top = await readAdmin<TopKey[]>(app, '/admin/v1/usage/top?by=refused', viewer)
      assert.deepEqual(
        top.map((row) => [row.key.name, ...outcomes(row)]),
        [['scraper', 60, 60, 10, 0]]
      )
      assert.equal(top[0]!.key.lastUsedAt, '2026-06-15T12:00:00.000Z')
      const byAllowed = await readAdmin<TopKey[]>(app, '/admin/v1/usage/top?limit=1', viewer)
      assert.deepEqual(
        byAllowed.map((row) => row.key.name),
        ['scraper']
      )

      const bans = await readAdmin<Key[]>(app, '/admin/v1/bans', viewer)
      assert.deepEqual(
        bans.map((k) => [k.id, k.bannedUntil]),
        [[id, '2026-06-15T12:15:10.000Z']]
      )
      const unbanned = (await (await sendAdmin(app, 'POST', `/admin/v1/keys/${id}/unban`, admin)).json()) as Key
      assert.equal(unbanned.bannedUntil, null)
      assert.deepEqual(await readAdmin<Key[]>(app, '/admin/v1/bans', viewer), [])
      assert.deepEqual(await hammer(app, key, 1), { rate_limited: 1 }, 'unbanned, and the minute is still spent')
    })

    test('quota_exceeded refusals in every answer: a key, all keys, a customer, top keys and customers by refusals', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const viewer = await app.operator('viewer')
      const spent = await app.keyWithId({ plan: 'pro', name: 'spent' })
      const customerId = (await app.storage.keys.get(spent.id))!.customerId!
      const sibling = await app.keyWithId({ customerId, name: 'sibling' })
      const limited = await app.keyWithId({ plan: 'free', name: 'limited' })
      assert.deepEqual(await hammer(app, spent.key, 2), { 200: 2 })
      // Refusals as a flush of another instance stores them: the spent customer's two keys, over two minutes and hours.
      const noon = Date.parse('2026-06-15T12:00:00Z')
      const none = { allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 }
      await app.storage.usage.add([
        { ...none, keyId: spent.id, minuteStart: noon, quotaExceeded: 5 },
        { ...none, keyId: sibling.id, minuteStart: noon - MINUTE, quotaExceeded: 3 },
        { ...none, keyId: limited.id, minuteStart: noon, rateLimited: 6 }
      ])

      const read = (path: string) => readAdmin<UsageBucket[]>(app, path, viewer)
      assert.deepEqual(busy(await read(`/admin/v1/keys/${spent.id}/usage?from=2026-06-15T11:58:00Z&granularity=minute`)), [
        '2026-06-15T12:00:00.000Z 2/0/0/5'
      ])
      assert.deepEqual(busy(await read(`/admin/v1/customers/${customerId}/usage?from=2026-06-15T11:58:00Z&granularity=minute`)), [
        '2026-06-15T11:59:00.000Z 0/0/0/3',
        '2026-06-15T12:00:00.000Z 2/0/0/5'
      ])
      assert.deepEqual(busy(await read('/admin/v1/usage?granularity=hour')), [
        '2026-06-15T11:00:00.000Z 0/0/0/3',
        '2026-06-15T12:00:00.000Z 2/6/0/5'
      ])
      assert.deepEqual(busy(await read(`/admin/v1/customers/${customerId}/usage?from=2026-06-15T00:00:00Z&granularity=day`)), [
        '2026-06-15T00:00:00.000Z 2/0/0/8'
      ])
      const keys = await readAdmin<TopKey[]>(app, '/admin/v1/usage/top?by=refused', viewer)
      assert.deepEqual(
        keys.map((row) => [row.key.name, ...outcomes(row)]),
        [
          ['limited', 0, 6, 0, 0],
          ['spent', 2, 0, 0, 5],
          ['sibling', 0, 0, 0, 3]
        ]
      )
      const customers = await readAdmin<TopCustomer[]>(app, '/admin/v1/usage/top?by=refused&group=customer', viewer)
      assert.deepEqual(
        customers.map((row) => [row.customer.name, ...outcomes(row)]),
        [
          ['spent', 2, 0, 0, 8],
          ['limited', 0, 6, 0, 0]
        ],
        "a customer's refusals are its keys' summed"
      )
    })

    test('usage queries: bad input is 400 naming the field; history rolls up and is pruned under the clock', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const viewer = await app.operator('viewer')
      const { key, id } = await app.keyWithId({ plan: 'free' })
      await hammer(app, key, 5)
      for (const [query, words] of [
        ['from=yesterday', 'from'],
        ['to=2026-06-15T25:00:00Z', 'to'],
        ['granularity=week', 'granularity'],
        ['from=2026-06-15T12:00:00Z&to=2026-06-15T11:00:00Z', 'must be before to'],
        ['from=2026-06-01T00:00:00Z&granularity=minute', 'within the last 48 hours'],
        ['from=2026-06-15T00:00:00Z&to=2026-06-18T00:00:00Z&granularity=minute', 'at most 3000'],
        ['from=2024-01-01T00:00:00Z', 'within the last 400 days'],
        ['cursor=abc', 'unknown query parameter']
      ] as const) {
        await assertOperatorError(await app.admin(`/admin/v1/keys/${id}/usage?${query}`, { token: viewer }), 'validation_failed', words)
        await assertOperatorError(await app.admin(`/admin/v1/usage?${query}`, { token: viewer }), 'validation_failed', words)
      }
      for (const query of ['by=most', 'limit=0', 'limit=101', 'granularity=hour']) {
        await assertOperatorError(await app.admin(`/admin/v1/usage/top?${query}`, { token: viewer }), 'validation_failed')
      }

      const usage = (query: string) => readAdmin<UsageBucket[]>(app, `/admin/v1/keys/${id}/usage?${query}`, viewer)
      assert.deepEqual(busy(await usage('granularity=minute')), ['2026-06-15T12:00:00.000Z 5/0/0/0'])
      // Two days on: the minutes of 12:00 are pruned, their hour and day still hold them.
      app.clock.advance(49 * HOUR)
      assert.ok((await app.services.usage.prune()) > 0)
      await assertOperatorError(
        await app.admin(`/admin/v1/keys/${id}/usage?from=2026-06-15T12:00:00Z&granularity=minute`, { token: viewer }),
        'validation_failed',
        'within the last 48 hours'
      )
      assert.deepEqual(
        busy(await usage('from=2026-06-15T12:00:00Z&to=2026-06-15T13:00:00Z')),
        ['2026-06-15T12:00:00.000Z 5/0/0/0'],
        'hours'
      )
      assert.deepEqual(busy(await usage('from=2026-06-15T00:00:00Z&granularity=day')), ['2026-06-15T00:00:00.000Z 5/0/0/0'])
      assert.equal((await app.services.keys.get(id)).lastUsedAt, '2026-06-15T12:00:00.000Z', 'the last use outlives the minutes')
    })
  })
}
