import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, test } from 'node:test'
import type { Customer } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { sqliteBackend, suiteBackends } from '../helpers/backends.ts'
import { assertOperatorError, createKeyAs, sendAdmin } from '../helpers/operator-api.ts'

// GET /admin/v1/usage/export: NDJSON for billing, closed periods only, the same bytes every time,
// streamed from the database a page at a time.

const HOUR = 3_600_000
const T0 = Date.parse('2026-06-15T09:00:00Z')

/** The export's body as text, with its status and content type checked. */
async function exported(app: TestApp, token: string, query: string): Promise<string> {
  const response = await app.admin(`/admin/v1/usage/export?${query}`, { token })
  const text = await response.text()
  assert.equal(response.status, 200, text)
  assert.equal(response.headers.get('content-type'), 'application/x-ndjson')
  return text
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

for (const { backend, skip } of await suiteBackends()) {
  describe(`usage export [${backend.name}]`, { skip }, () => {
    test('both formats field by field; the open hour absent; two exports byte-identical', async (t) => {
      const app = await startApp(t, { backend, admin: true, now: new Date('2026-06-15T12:00:20Z') })
      const viewer = await app.operator('viewer')
      const admin = await app.operator('admin')
      const billed = (await (
        await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: 'Billed', plan: 'pro', externalId: 'cus_Stripe9' })
      ).json()) as Customer
      const key = await createKeyAs(app, admin, { customerId: billed.id })
      const other = await createKeyAs(app, admin, { plan: 'free', name: 'unbilled' })
      // Two keys' counts in hour 9 (two minutes of one), only refusals of the monthly quota in hour 10,
      // counts in hour 11 (ended 20 s ago), and hour 12 still open.
      await app.storage.usage.add([
        { keyId: key.id, minuteStart: T0 + 60_000, allowed: 5, rateLimited: 2, banned: 1, quotaExceeded: 4 },
        { keyId: key.id, minuteStart: T0 + 59 * 60_000, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 3 },
        { keyId: other.id, minuteStart: T0 + 120_000, allowed: 3, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { keyId: other.id, minuteStart: T0 + HOUR, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 2 },
        { keyId: key.id, minuteStart: T0 + 2 * HOUR, allowed: 7, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { keyId: key.id, minuteStart: T0 + 3 * HOUR, allowed: 1, rateLimited: 0, banned: 0, quotaExceeded: 1 }
      ])
      const query = 'from=2026-06-15T09:00:00Z&to=2026-06-15T13:00:00Z'
      const text = await exported(app, viewer, query)
      assert.equal(await exported(app, viewer, query), text, 'byte-identical when repeated')
      const events = lines(text)
      const [first, second] = [billed.id, other.customerId].sort()
      assert.deepEqual(
        events.map((event) => event.id),
        [
          `${first}/hour/2026-06-15T09:00:00.000Z`,
          `${second}/hour/2026-06-15T09:00:00.000Z`,
          `${other.customerId}/hour/2026-06-15T10:00:00.000Z`,
          `${billed.id}/hour/2026-06-15T11:00:00.000Z`
        ],
        'oldest period first, then by customer id; a period of refusals only is exported, hour 12 is open'
      )
      assert.deepEqual(
        events.find((event) => event.id === `${billed.id}/hour/2026-06-15T09:00:00.000Z`),
        {
          specversion: '1.0',
          type: 'animal-store.usage',
          source: app.base,
          id: `${billed.id}/hour/2026-06-15T09:00:00.000Z`,
          subject: 'cus_Stripe9',
          time: '2026-06-15T10:00:00.000Z',
          datacontenttype: 'application/json',
          data: {
            customerId: billed.id,
            externalId: 'cus_Stripe9',
            plan: 'pro',
            from: '2026-06-15T09:00:00.000Z',
            to: '2026-06-15T10:00:00.000Z',
            allowed: 5,
            rateLimited: 2,
            banned: 1,
            quotaExceeded: 7
          }
        }
      )
      assert.equal(events.find((event) => event.id === `${other.customerId}/hour/2026-06-15T09:00:00.000Z`)?.subject, other.customerId)
      const quotaExceeded = (event: Record<string, unknown>) => (event.data as { quotaExceeded: number }).quotaExceeded
      assert.deepEqual(Object.fromEntries(events.map((event) => [event.id, quotaExceeded(event)])), {
        [`${billed.id}/hour/2026-06-15T09:00:00.000Z`]: 7,
        [`${other.customerId}/hour/2026-06-15T09:00:00.000Z`]: 0,
        [`${other.customerId}/hour/2026-06-15T10:00:00.000Z`]: 2,
        [`${billed.id}/hour/2026-06-15T11:00:00.000Z`]: 0
      })

      const stripe = lines(await exported(app, viewer, `${query}&format=stripe`))
      assert.deepEqual(stripe, [
        {
          event_name: 'animal_store_requests',
          timestamp: Date.parse('2026-06-15T10:00:00Z') / 1000,
          identifier: `${billed.id}/hour/2026-06-15T09:00:00.000Z`,
          payload: { stripe_customer_id: 'cus_Stripe9', value: '5' }
        },
        {
          event_name: 'animal_store_requests',
          timestamp: Date.parse('2026-06-15T12:00:00Z') / 1000,
          identifier: `${billed.id}/hour/2026-06-15T11:00:00.000Z`,
          payload: { stripe_customer_id: 'cus_Stripe9', value: '7' }
        }
      ])
      const days = lines(await exported(app, viewer, 'from=2026-06-14T00:00:00Z&to=2026-06-16T00:00:00Z&granularity=day'))
      assert.deepEqual(days, [], 'the 15th has not ended')

      app.clock.set(new Date('2026-06-15T13:00:16Z'))
      assert.equal(lines(await exported(app, viewer, query)).length, 5, 'hour 12, closed 16 s ago, is now exported')
      app.clock.set(new Date('2026-06-16T00:00:16Z'))
      const day = lines(await exported(app, viewer, 'from=2026-06-15T00:00:00Z&to=2026-06-16T00:00:00Z&granularity=day'))
      assert.deepEqual(
        day.find((event) => event.id === `${billed.id}/day/2026-06-15T00:00:00.000Z`)?.data,
        {
          customerId: billed.id,
          externalId: 'cus_Stripe9',
          plan: 'pro',
          from: '2026-06-15T00:00:00.000Z',
          to: '2026-06-16T00:00:00.000Z',
          allowed: 13,
          rateLimited: 2,
          banned: 1,
          quotaExceeded: 8
        },
        "the day sums its hours' counts, each outcome"
      )
    })

    test('bad input is 400 naming the parameter, before any line', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const viewer = await app.operator('viewer')
      const refused = async (query: string, words: string) =>
        assertOperatorError(await app.admin(`/admin/v1/usage/export?${query}`, { token: viewer }), 'validation_failed', words)
      await refused('to=2026-06-15T10:00:00Z', 'from')
      await refused('from=2026-06-15T09:30:00Z&to=2026-06-15T10:00:00Z', 'boundary')
      await refused('from=2026-06-15T10:00:00Z&to=2026-06-15T09:00:00Z', 'before')
      await refused('from=2026-06-15T00:00:00Z&to=2026-06-16T00:00:00Z&format=csv', 'format')
      await refused('from=2026-06-15T00:00:00Z&to=2026-06-16T00:00:00Z&granularity=minute', 'granularity')
    })
  })
}

describe('usage export of 100,000 customer-hours [sqlite]', () => {
  test('streamed a page at a time: the heap never holds the answer', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, admin: true, now: new Date('2026-06-15T12:00:00Z') })
    const viewer = await app.operator('viewer')
    // 1,000 customers with a key each, and 100 hours of counts each, written as the flush writes them.
    const db = new DatabaseSync(app.backendEnv.DATABASE_URL!.slice('sqlite:'.length), { timeout: 5000 })
    t.after(() => db.close())
    db.exec('BEGIN')
    const customer = db.prepare("INSERT INTO customers (id, name, plan, counter_id, created_at) VALUES (?, ?, 'free', ?, 0)")
    const key = db.prepare(
      "INSERT INTO api_keys (id, secret_hash, prefix, plan, created_at, customer_id) VALUES (?, ?, 'as_live_xxxx', 'free', 0, ?)"
    )
    const row = db.prepare(
      "INSERT INTO usage_by_key (granularity, key_id, start, allowed, rate_limited, banned) VALUES ('hour', ?, ?, ?, 0, 0)"
    )
    for (let c = 0; c < 1000; c++) {
      const suffix = String(c).padStart(16, '0')
      customer.run(`cus_${suffix}`, `Customer ${c}`, `cus_${suffix}`)
      key.run(`key_${suffix}`, suffix.padStart(64, '0'), `cus_${suffix}`)
      for (let h = 0; h < 100; h++) row.run(`key_${suffix}`, T0 - 100 * HOUR + h * HOUR, 1 + h)
    }
    db.exec('COMMIT')

    const response = await app.admin('/admin/v1/usage/export?from=2026-06-11T05:00:00Z&to=2026-06-15T09:00:00Z', { token: viewer })
    assert.equal(response.status, 200)
    // The live heap, garbage collected first: what the server (this process) holds at that moment.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const liveHeap = () => {
      gc()
      return process.memoryUsage().heapUsed
    }
    const heapBefore = liveHeap()
    let [bytes, count, chunks, peakHeap, peakRss] = [0, 0, 0, 0, 0]
    const decoder = new TextDecoder()
    for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength
      count += decoder.decode(chunk, { stream: true }).split('\n').length - 1
      if (++chunks % 20 === 0) peakHeap = Math.max(peakHeap, liveHeap() - heapBefore)
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    }
    assert.equal(count, 100_000)
    t.diagnostic(
      `${count} lines, ${(bytes / 1e6).toFixed(1)} MB streamed; heap growth at most ${(peakHeap / 1e6).toFixed(1)} MB; peak RSS ${(peakRss / 1e6).toFixed(0)} MB`
    )
    assert.ok(peakHeap < bytes / 4, `the live heap grew ${peakHeap} bytes for an answer of ${bytes}: it was not built whole`)
  })
})
