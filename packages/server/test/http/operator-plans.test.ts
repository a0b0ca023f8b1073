import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AuditEvent, Customer, Key, KeyWithSecret, Plan, RateLimitStatus } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { assertOperatorError, createKeyAs, readAdmin, sendAdmin } from '../helpers/operator-api.ts'
import { until } from '../helpers/wait.ts'

const SEEDED: Array<Pick<Plan, 'id' | 'name' | 'limits'>> = [
  { id: 'business', name: 'Business', limits: { perMinute: 1000, perDay: 100000, perMonth: null } },
  { id: 'enterprise', name: 'Enterprise', limits: null },
  { id: 'free', name: 'Free', limits: { perMinute: 60, perDay: 1000, perMonth: null } },
  { id: 'pro', name: 'Pro', limits: { perMinute: 300, perDay: 10000, perMonth: null } }
]

const plans = (app: TestApp, token: string) => readAdmin<Plan[]>(app, '/admin/v1/plans', token)
const deletePlan = (app: TestApp, id: string, token: string) => app.admin(`/admin/v1/plans/${id}`, { method: 'DELETE', token })

/** `"minute";r=N;t=...` of a response's RateLimit field, as [limit, remaining] from the policy and the field. */
function minuteWindow(response: Response): { limit: number; remaining: number } {
  const limit = Number(/"minute";q=(\d+)/.exec(response.headers.get('ratelimit-policy') ?? '')?.[1])
  const remaining = Number(/"minute";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1])
  return { limit, remaining }
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`operator API: plans [${backend.name}]`, { skip }, () => {
    test('listPlans: the four plans of SPEC.md; createPlan, updatePlan, deletePlan, each audited', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin', 'Ada')
      const seeded = await plans(app, admin)
      assert.deepEqual(
        seeded.map(({ id, name, limits, customers }) => ({ id, name, limits, customers })),
        SEEDED.map((plan) => ({ ...plan, customers: 0 }))
      )

      const response = await sendAdmin(app, 'POST', '/admin/v1/plans', admin, {
        id: 'startup',
        name: 'Startup',
        limits: { perMinute: 120, perDay: 5000 }
      })
      assert.equal(response.status, 201)
      const created = (await response.json()) as Plan
      assert.deepEqual(created, {
        id: 'startup',
        name: 'Startup',
        limits: { perMinute: 120, perDay: 5000, perMonth: null },
        customers: 0,
        createdAt: '2026-06-15T12:00:10.000Z'
      })
      assert.deepEqual(
        (await plans(app, admin)).map((plan) => plan.id),
        ['business', 'enterprise', 'free', 'pro', 'startup']
      )

      const updated = await sendAdmin(app, 'PATCH', '/admin/v1/plans/startup', admin, {
        name: 'Start-up',
        limits: { perMinute: 150, perDay: 6000 }
      })
      assert.equal(updated.status, 200)
      assert.deepEqual(((await updated.json()) as Plan).limits, { perMinute: 150, perDay: 6000, perMonth: null })
      const quota = await sendAdmin(app, 'PATCH', '/admin/v1/plans/startup', admin, {
        limits: { perMinute: 150, perDay: 6000, perMonth: 100_000 }
      })
      assert.deepEqual(((await quota.json()) as Plan).limits, { perMinute: 150, perDay: 6000, perMonth: 100_000 })
      const noQuota = await sendAdmin(app, 'PATCH', '/admin/v1/plans/startup', admin, {
        limits: { perMinute: 150, perDay: 6000, perMonth: null }
      })
      assert.deepEqual(((await noQuota.json()) as Plan).limits, { perMinute: 150, perDay: 6000, perMonth: null })
      const custom = await sendAdmin(app, 'PATCH', '/admin/v1/plans/startup', admin, { limits: null })
      assert.equal(((await custom.json()) as Plan).limits, null, 'a plan nothing is on may become custom')

      assert.equal((await deletePlan(app, 'startup', admin)).status, 204)
      assert.deepEqual(
        (await plans(app, admin)).map((plan) => plan.id),
        ['business', 'enterprise', 'free', 'pro']
      )
      await assertOperatorError(await deletePlan(app, 'startup', admin), 'not_found', 'no plan has id "startup"')

      const events = await readAdmin<AuditEvent[]>(app, '/admin/v1/audit?target=startup', admin)
      assert.deepEqual(
        events.map((event) => [event.action, event.actor.name, event.target.type, event.changes]),
        [
          ['plan.delete', 'Ada', 'plan', {}],
          ['plan.update', 'Ada', 'plan', { perMinute: { from: 150, to: null }, perDay: { from: 6000, to: null } }],
          ['plan.update', 'Ada', 'plan', { perMonth: { from: 100_000, to: null } }],
          ['plan.update', 'Ada', 'plan', { perMonth: { from: null, to: 100_000 } }],
          [
            'plan.update',
            'Ada',
            'plan',
            { name: { from: 'Startup', to: 'Start-up' }, perMinute: { from: 120, to: 150 }, perDay: { from: 5000, to: 6000 } }
          ],
          ['plan.create', 'Ada', 'plan', {}]
        ]
      )
    })

    test('refusals: 409 plan_exists and plan_in_use, 400 for bad input, 404, 403 for a viewer; none changes anything', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const viewer = await app.operator('viewer')
      const before = JSON.stringify(await plans(app, admin))
      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/plans', admin, { id: 'pro', name: 'Pro again', limits: { perMinute: 1, perDay: 1 } }),
        'plan_exists',
        'a plan with id "pro" exists already'
      )
      for (const [body, words] of [
        [{ id: 'Gold', name: 'Gold', limits: null }, 'id'],
        [{ id: 'gold', name: '', limits: null }, 'name'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 0, perDay: 10 } }, 'perMinute'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 10, perDay: 1_000_000_001 } }, 'perDay'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 10, perDay: 100, perMonth: 0 } }, 'perMonth'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 10, perDay: 100, perMonth: 1_000_000_000_001 } }, 'perMonth'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 10, perDay: 100, perMonth: 1.5 } }, 'perMonth'],
        [{ id: 'gold', name: 'Gold', limits: { perMinute: 10, perDay: 100, perMonth: '5' } }, 'perMonth'],
        [{ id: 'gold', name: 'Gold' }, 'limits'],
        [{ id: 'gold', name: 'Gold', limits: null, owner: 'x' }, 'owner']
      ] as const) {
        await assertOperatorError(await sendAdmin(app, 'POST', '/admin/v1/plans', admin, body), 'validation_failed', words)
      }
      await assertOperatorError(await sendAdmin(app, 'PATCH', '/admin/v1/plans/pro', admin, {}), 'validation_failed', 'nothing to change')
      await assertOperatorError(await sendAdmin(app, 'PATCH', '/admin/v1/plans/gold', admin, { name: 'Gold' }), 'not_found')
      await assertOperatorError(
        await sendAdmin(app, 'POST', '/admin/v1/plans', viewer, { id: 'gold', name: 'Gold', limits: null }),
        'forbidden'
      )
      await assertOperatorError(await deletePlan(app, 'free', viewer), 'forbidden')

      // A plan a customer is on stays; it cannot become custom while its customers have no numbers of their own.
      const key = await createKeyAs(app, admin, { plan: 'pro' })
      await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/revoke`, admin)
      await assertOperatorError(await deletePlan(app, 'pro', admin), 'plan_in_use', 'plan "pro" has 1 customer on it')
      await assertOperatorError(
        await sendAdmin(app, 'PATCH', '/admin/v1/plans/pro', admin, { limits: null }),
        'plan_in_use',
        'cannot become custom: 1 customer on it carries no limits of its own'
      )
      const after = await plans(app, admin)
      assert.equal(after.find((plan) => plan.id === 'pro')!.customers, 1)
      assert.equal(JSON.stringify(after.map((plan) => ({ ...plan, customers: 0 }))), before, 'nothing else changed')
      const audit = await readAdmin<AuditEvent[]>(app, '/admin/v1/audit?action=plan.create', admin)
      assert.deepEqual(audit, [], 'no refused change was audited')
    })

    test("monthly quotas: a plan's for customers without numbers of their own, else the customer's own; refusals", async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const metered = { perMinute: 300, perDay: 10000, perMonth: 100_000 }
      await sendAdmin(app, 'POST', '/admin/v1/plans', admin, { id: 'metered', name: 'Metered', limits: metered })
      const create = async (body: object) => {
        const response = await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { plan: 'metered', ...body })
        assert.equal(response.status, 201)
        return (await response.json()) as Customer
      }
      const patch = async (id: string, body: object) => {
        const response = await sendAdmin(app, 'PATCH', `/admin/v1/customers/${id}`, admin, body)
        assert.equal(response.status, 200)
        return (await response.json()) as Customer
      }
      const onPlan = await create({ name: 'On the plan' })
      assert.deepEqual([onPlan.limits, onPlan.ownLimits, onPlan.usage], [metered, false, { minute: 0, day: 0, month: 0 }])
      const own = await create({ name: 'Own', limits: { perMinute: 10, perDay: 100, perMonth: 5000 } })
      assert.deepEqual([own.limits, own.ownLimits], [{ perMinute: 10, perDay: 100, perMonth: 5000 }, true])
      const ownNone = await create({ name: 'Own, none', limits: { perMinute: 10, perDay: 100 } })
      assert.deepEqual(
        ownNone.limits,
        { perMinute: 10, perDay: 100, perMonth: null },
        "numbers of its own without a quota: none, not the plan's"
      )

      // A key runs under its customer's: the key record carries the customer's own quota.
      const keyOf = async (customer: Customer) => (await createKeyAs(app, admin, { customerId: customer.id })).id
      const [onPlanKey, ownKey] = [await keyOf(onPlan), await keyOf(own)]
      const limitsOfKey = async (id: string) => (await readAdmin<Key>(app, `/admin/v1/keys/${id}`, admin)).limits
      assert.deepEqual(await limitsOfKey(onPlanKey), metered)
      assert.deepEqual(await limitsOfKey(ownKey), { perMinute: 10, perDay: 100, perMonth: 5000 })

      assert.equal((await patch(own.id, { limits: { perMinute: 10, perDay: 100, perMonth: 7000 } })).limits.perMonth, 7000)
      assert.equal((await patch(own.id, { limits: { perMinute: 10, perDay: 100, perMonth: null } })).limits.perMonth, null)
      assert.deepEqual(await limitsOfKey(ownKey), { perMinute: 10, perDay: 100, perMonth: null })
      const back = await patch(own.id, { limits: null })
      assert.deepEqual([back.limits, back.ownLimits], [metered, false], "the plan's numbers and quota")
      assert.equal((await patch(ownNone.id, { plan: 'free' })).limits.perMonth, null, 'a new plan: its quota (none on free)')

      // A change of the plan's quota reaches its customers (this instance's plan book is told at once).
      await sendAdmin(app, 'PATCH', '/admin/v1/plans/metered', admin, { limits: { ...metered, perMonth: 200_000 } })
      assert.equal((await readAdmin<Customer>(app, `/admin/v1/customers/${onPlan.id}`, admin)).limits.perMonth, 200_000)
      assert.equal((await limitsOfKey(onPlanKey)).perMonth, 200_000)

      const events = await readAdmin<AuditEvent[]>(app, `/admin/v1/audit?target=${own.id}&action=customer.update`, admin)
      assert.deepEqual(
        events.map((event) => event.changes),
        [
          { perMinute: { from: 10, to: null }, perDay: { from: 100, to: null } },
          { perMonth: { from: 7000, to: null } },
          { perMonth: { from: 5000, to: 7000 } }
        ]
      )

      const before = JSON.stringify(await readAdmin<Customer>(app, `/admin/v1/customers/${own.id}`, admin))
      for (const perMonth of [0, 1_000_000_000_001, 1.5, '5']) {
        const limits = { perMinute: 10, perDay: 100, perMonth }
        const rule = /^limits must be \{perMinute, perDay\[, perMonth\]\} .*perMonth up to 1000000000000/
        await assertOperatorError(
          await sendAdmin(app, 'POST', '/admin/v1/customers', admin, { name: 'X', plan: 'free', limits }),
          'validation_failed',
          rule
        )
        await assertOperatorError(
          await sendAdmin(app, 'PATCH', `/admin/v1/customers/${own.id}`, admin, { limits }),
          'validation_failed',
          rule
        )
        await assertOperatorError(await sendAdmin(app, 'PATCH', '/admin/v1/plans/metered', admin, { limits }), 'validation_failed', rule)
      }
      assert.equal(JSON.stringify(await readAdmin<Customer>(app, `/admin/v1/customers/${own.id}`, admin)), before)
      assert.equal((await readAdmin<Plan[]>(app, '/admin/v1/plans', admin)).find((p) => p.id === 'metered')!.limits?.perMonth, 200_000)
    })

    test("a key on a new plan runs under its limits; a change reaches the key within 5 s, the window's count kept", async (t) => {
      const first = await startApp(t, { backend, admin: true })
      // On PostgreSQL + Redis, a second instance on the same stores: the change is made on one, seen on the other.
      const second = backend === postgresBackend ? await startApp(t, { backend, shareStorageWith: first }) : first
      const admin = await first.operator('admin')
      await sendAdmin(first, 'POST', '/admin/v1/plans', admin, { id: 'startup', name: 'Startup', limits: { perMinute: 120, perDay: 5000 } })
      const key = await createKeyAs(first, admin, { plan: 'startup' })
      assert.deepEqual(key.limits, { perMinute: 120, perDay: 5000, perMonth: null })
      for (let i = 1; i <= 3; i++) {
        const response = await second.fetch('/v1/pets', { key: key.key })
        assert.equal(response.status, 200)
        assert.deepEqual(minuteWindow(response), { limit: 120, remaining: 120 - i })
      }
      const status = (await (await second.fetch('/v1/rate_limit', { key: key.key })).json()) as { plan: string }
      assert.equal(status.plan, 'startup')

      const changed = await sendAdmin(first, 'PATCH', '/admin/v1/plans/startup', admin, { limits: { perMinute: 5, perDay: 5000 } })
      assert.equal(changed.status, 200)
      assert.equal(((await changed.json()) as Plan).customers, 1)
      const started = Date.now()
      let seen: { limit: number; remaining: number } | undefined
      await until(
        async () => {
          const response = await second.fetch('/v1/rate_limit', { key: key.key })
          const window = minuteWindow(response)
          if (window.limit === 5) seen = window
          return seen !== undefined
        },
        { timeoutMs: 5000, intervalMs: 100, what: 'the new limit on the instance that did not make the change' }
      )
      assert.ok(Date.now() - started <= 5000)
      assert.deepEqual(seen, { limit: 5, remaining: 2 }, 'the 3 requests already taken this minute still count')
      assert.equal((await second.fetch('/v1/pets', { key: key.key })).status, 200)
      assert.equal((await second.fetch('/v1/pets', { key: key.key })).status, 200)
      const refused = await second.fetch('/v1/pets', { key: key.key })
      assert.equal(refused.status, 429)
      assert.equal((await readAdmin<KeyWithSecret>(first, `/admin/v1/keys/${key.id}`, admin)).limits.perMinute, 5)

      // A monthly quota given to the plan reaches the key the same way: a third window.
      const quota = { limits: { perMinute: 5, perDay: 5000, perMonth: 50_000 } }
      assert.equal((await sendAdmin(first, 'PATCH', '/admin/v1/plans/startup', admin, quota)).status, 200)
      const quotaChanged = Date.now()
      await until(
        async () => {
          const windows = ((await (await second.fetch('/v1/rate_limit', { key: key.key })).json()) as RateLimitStatus).limits
          return windows.some((window) => window.window === 'month' && window.limit === 50_000)
        },
        { timeoutMs: 5000, intervalMs: 100, what: 'the monthly quota on the instance that did not make the change' }
      )
      assert.ok(Date.now() - quotaChanged <= 5000)
    })
  })
}
