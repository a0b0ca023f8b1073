import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AuditEvent, Customer, Key, TopCustomer, UsageBucket } from '@animal-store/contract'
import { assertError } from '../helpers/assertions.ts'
import { startApp, type TestApp } from '../helpers/app.ts'
import { postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { assertOperatorError, createKeyAs, readAdmin, sendAdmin } from '../helpers/operator-api.ts'
import { until } from '../helpers/wait.ts'

/** Creates a customer through the operator API, expecting 201. */
async function createCustomer(app: TestApp, token: string, body: unknown): Promise<Customer> {
  const response = await sendAdmin(app, 'POST', '/admin/v1/customers', token, body)
  const text = await response.text()
  assert.equal(response.status, 201, text)
  return JSON.parse(text) as Customer
}

/** The statuses of `count` requests sent at once, alternating between `keys` (and `apps`). */
async function burst(apps: TestApp[], keys: string[], count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await apps[i % apps.length]!.fetch('/v1/pets?limit=1', { key: keys[i % keys.length]! })
      await response.arrayBuffer()
      return response.status
    })
  )
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`customers [${backend.name}]`, { skip }, () => {
    test('create, get, list, change; refusals change nothing; every change audited', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin', 'Ada')
      const acme = await createCustomer(app, admin, { name: 'Acme Corp', plan: 'pro', externalId: 'cus_Stripe1' })
      assert.match(acme.id, /^cus_[0-9A-Za-z]{16}$/)
      assert.deepEqual(
        { ...acme, id: '' },
        {
          id: '',
          name: 'Acme Corp',
          externalId: 'cus_Stripe1',
          plan: 'pro',
          limits: { perMinute: 300, perDay: 10000, perMonth: null },
          ownLimits: false,
          keys: 0,
          createdAt: '2026-06-15T12:00:10.000Z',
          bannedUntil: null,
          usage: { minute: 0, day: 0, month: 0 }
        }
      )
      app.clock.set(new Date('2026-06-15T12:00:11Z'))
      const big = await createCustomer(app, admin, { name: 'Big Co', plan: 'enterprise', limits: { perMinute: 5000, perDay: 900000 } })
      assert.deepEqual([big.ownLimits, big.limits], [true, { perMinute: 5000, perDay: 900000, perMonth: null }])

      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: 'Copy', plan: 'free', externalId: 'cus_Stripe1' }),
        'customer_exists',
        'externalId'
      )
      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: 'X', plan: 'enterprise' }),
        'validation_failed',
        'limits'
      )
      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: 'X', plan: 'gold' }),
        'validation_failed',
        'plan'
      )
      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: '', plan: 'free' }),
        'validation_failed',
        'name'
      )
      const viewer = await app.operator('viewer')
      await assertOperatorError(await sendAdmin(app, 'POST', '/admin/v1/customers', viewer, { name: 'V', plan: 'free' }), 'forbidden')
      await assertOperatorError(await app.admin('/admin/v1/customers/cus_0000000000000000', { token: viewer }), 'not_found')

      assert.deepEqual(
        (await readAdmin<Customer[]>(app, '/admin/v1/customers', viewer)).map((c) => c.name),
        ['Big Co', 'Acme Corp']
      )
      assert.deepEqual(
        (await readAdmin<Customer[]>(app, '/admin/v1/customers?search=STRIPE', viewer)).map((c) => c.id),
        [acme.id]
      )
      assert.deepEqual(
        (await readAdmin<Customer[]>(app, '/admin/v1/customers?plan=enterprise', viewer)).map((c) => c.id),
        [big.id]
      )
      const paged = await app.admin('/admin/v1/customers?limit=1', { token: viewer })
      assert.match(paged.headers.get('link') ?? '', /rel="next"/)

      const changed = await sendAdmin(app, 'PATCH', `/admin/v1/customers/${acme.id}`, admin, {
        plan: 'enterprise',
        limits: { perMinute: 10, perDay: 20, perMonth: null },
        externalId: null
      })
      assert.equal(changed.status, 200)
      const after = (await changed.json()) as Customer
      assert.deepEqual(
        [after.plan, after.limits, after.ownLimits, after.externalId],
        ['enterprise', { perMinute: 10, perDay: 20, perMonth: null }, true, null]
      )
      await assertOperatorError(
        await sendAdmin(app, 'PATCH', `/admin/v1/customers/${acme.id}`, admin, { limits: null }),
        'validation_failed',
        'custom plan'
      )
      await assertOperatorError(
        await sendAdmin(app, 'PATCH', `/admin/v1/customers/${acme.id}`, admin, {}),
        'validation_failed',
        'nothing to change'
      )
      assert.deepEqual(await readAdmin<Customer>(app, `/admin/v1/customers/${acme.id}`, viewer), after, 'the refusals changed nothing')

      const events = await readAdmin<AuditEvent[]>(app, `/admin/v1/audit?target=${acme.id}`, viewer)
      assert.deepEqual(
        events.map((e) => [e.action, e.actor.name, e.target.type, e.changes]),
        [
          [
            'customer.update',
            'Ada',
            'customer',
            {
              plan: { from: 'pro', to: 'enterprise' },
              perMinute: { from: null, to: 10 },
              perDay: { from: null, to: 20 },
              externalId: { from: 'cus_Stripe1', to: null }
            }
          ],
          ['customer.create', 'Ada', 'customer', {}]
        ]
      )
    })

    test("two keys of one Free customer get 60 a minute between them, exactly; a ban covers all the customer's keys", async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const customer = await createCustomer(app, admin, { name: 'Two keys', plan: 'free' })
      const production = await createKeyAs(app, admin, { customerId: customer.id, name: 'production' })
      const staging = await createKeyAs(app, admin, { customerId: customer.id, name: 'staging', scopes: ['pets:read'] })
      assert.deepEqual([production.customerId, staging.customerId], [customer.id, customer.id])
      const other = await app.key({ plan: 'free' })

      const statuses = await burst([app], [production.key, staging.key], 200)
      assert.equal(statuses.filter((s) => s === 200).length, 60, 'the customer has 60 a minute, not 60 per key')
      assert.equal((await app.fetch('/v1/pets', { key: other })).status, 200, "another customer's key is untouched")
      const shown = await readAdmin<Customer>(app, `/admin/v1/customers/${customer.id}`, admin)
      assert.deepEqual([shown.keys, shown.usage], [2, { minute: 60, day: 60, month: 0 }])
      const keys = await readAdmin<Key[]>(app, `/admin/v1/keys?customer=${customer.id}`, admin)
      assert.deepEqual(keys.map((k) => [k.name, k.usage.minute]).sort(), [
        ['production', 60],
        ['staging', 60]
      ])

      // Refusals 1..60 were rate_limited, the 61st of the burst started a ban of every key.
      const banned = await app.fetch('/v1/pets', { key: staging.key })
      await assertError(banned, 'api_key_banned')
      await assertError(await app.fetch('/v1/pets', { key: production.key }), 'api_key_banned')
      const bans = await readAdmin<Key[]>(app, '/admin/v1/bans', admin)
      assert.deepEqual(bans.map((k) => k.id).sort(), [production.id, staging.id].sort())
      assert.ok((await readAdmin<Customer>(app, `/admin/v1/customers/${customer.id}`, admin)).bannedUntil)

      const unbanned = await sendAdmin(app, 'POST', `/admin/v1/customers/${customer.id}/unban`, admin)
      assert.equal(((await unbanned.json()) as Customer).bannedUntil, null)
      await assertError(await app.fetch('/v1/pets', { key: production.key }), 'rate_limited', 'per minute')
      const audit = await readAdmin<AuditEvent[]>(app, `/admin/v1/audit?target=${customer.id}&action=customer.unban`, admin)
      assert.equal(audit.length, 1)

      // Usage by customer: both keys' requests summed; top customers rank them.
      const usage = await readAdmin<UsageBucket[]>(
        app,
        `/admin/v1/customers/${customer.id}/usage?from=2026-06-15T12:00:00Z&to=2026-06-15T12:01:00Z&granularity=minute`,
        admin
      )
      assert.deepEqual([usage[0]!.allowed, usage[0]!.rateLimited, usage[0]!.banned], [60, 61, 82])
      const top = await readAdmin<TopCustomer[]>(app, '/admin/v1/usage/top?group=customer&by=refused', admin)
      assert.deepEqual([top[0]!.customer.id, top[0]!.allowed], [customer.id, 60])
    })

    test('a customer change reaches every key on another instance within 5 s, counts kept; a key update changes its customer', async (t) => {
      const first = await startApp(t, { backend, admin: true })
      // Two instances share counters only through Redis: on the embedded store, one instance.
      const second = backend === postgresBackend ? await startApp(t, { backend, shareStorageWith: first }) : first
      const admin = await first.operator('admin')
      const customer = await createCustomer(first, admin, { name: 'Growing', plan: 'free' })
      const a = await createKeyAs(first, admin, { customerId: customer.id })
      const b = await createKeyAs(first, admin, { customerId: customer.id })
      const statuses = await burst([first, second], [a.key, b.key], 70)
      assert.equal(statuses.filter((s) => s === 200).length, 60, 'exact, across two instances on Redis')
      const changed = await sendAdmin(first, 'PATCH', `/admin/v1/keys/${a.id}`, admin, { plan: 'pro' })
      assert.equal(((await changed.json()) as Key).plan, 'pro')
      assert.equal(
        (await readAdmin<Customer>(first, `/admin/v1/customers/${customer.id}`, admin)).plan,
        'pro',
        "the key's customer changed"
      )
      // Key lookups (which carry the customer's plan) are cached 2 s on the service's clock.
      second.clock.advance(2_000)
      await until(async () => (await second.fetch('/v1/pets', { key: b.key })).status === 200, {
        timeoutMs: 3000,
        intervalMs: 200,
        what: "the customer's new plan on the other instance"
      })
      const headers = (await second.fetch('/v1/pets', { key: b.key })).headers.get('ratelimit-policy') ?? ''
      assert.match(headers, /"minute";q=300/)
      const remaining = Number(
        /"minute";r=(\d+)/.exec((await second.fetch('/v1/pets', { key: a.key })).headers.get('ratelimit') ?? '')?.[1]
      )
      assert.ok(remaining < 240, `the 60 already taken in this minute are kept (remaining ${remaining})`)
    })

    test('createKey: customerId or plan, not both; an unknown customer is 400; nothing is created', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const customer = await createCustomer(app, admin, { name: 'C', plan: 'free' })
      for (const [body, field] of [
        [{ customerId: customer.id, plan: 'free' }, 'customerId'],
        [{ customerId: customer.id, perMinute: 5 }, 'customerId'],
        [{ customerId: 'cus_0000000000000000' }, 'names no customer'],
        [{ customerId: 'nope' }, 'customerId'],
        [{ name: 'neither' }, 'plan']
      ] as const) {
        await assertOperatorError(await sendAdmin(app, 'POST', '/admin/v1/keys', admin, body), 'validation_failed', field)
      }
      assert.deepEqual(await app.storage.keys.list(), [])
      const own = await createKeyAs(app, admin, { plan: 'business', name: 'alone' })
      const made = await readAdmin<Customer>(app, `/admin/v1/customers/${own.customerId}`, admin)
      assert.deepEqual([made.name, made.plan, made.keys], ['alone', 'business', 1], 'a key made with a plan has a customer of its own')
    })
  })
}
