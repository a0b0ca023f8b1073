import assert from 'node:assert/strict'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test, type TestContext } from 'node:test'
import pg, { type QueryResultRow } from 'pg'
import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry } from '../../src/storage/audit/types.ts'
import type { CustomerRecord } from '../../src/storage/customers/types.ts'
import type { ApiKeyRecord } from '../../src/storage/keys/types.ts'
import type { PlanRecord } from '../../src/storage/plans/types.ts'
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations/list.ts'
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations/list.ts'
import type { Storage } from '../../src/storage/types.ts'
import { testAudit } from '../helpers/audit.ts'
import { AT, cliAudit, customerRecord, hashOf, keyRecord } from '../helpers/records.ts'
import { backendSkip, openStorage, openStore, postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { adminQuery, createSchema } from '../helpers/postgres.ts'
import { defer, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

// The plan store of each backend against its real database: migration 7's seed, every refusal
// made inside the write's transaction (a customer created meanwhile counts), each change's audit
// row, and the foreign keys from customers and api_keys. A plan is in use by the customers on it.

const planAudit = (action: AuditAction, changes?: AuditEntry['changes']) => cliAudit('plan', action, changes)
const customerAudit = (action: AuditAction, changes?: AuditEntry['changes']) => cliAudit('customer', action, changes)

/** KeyStore.update's audit: the key.update entry alone (the key service adds its customer's). */
const keyUpdateAudit = (_before: ApiKeyRecord, after: ApiKeyRecord): AuditEntry[] => [testAudit('key.update')(after)]

const plan = (id: string, limits: { perMinute: number; perDay: number; perMonth?: number } | null, name = `Plan ${id}`): PlanRecord => ({
  id,
  name,
  perMinute: limits?.perMinute ?? null,
  perDay: limits?.perDay ?? null,
  perMonth: limits?.perMonth ?? null,
  createdAt: AT
})

/** A customer on `planId` with these numbers of its own (null: the plan's), counting under its own id. */
const customer = (id: string, planId: string, perMinute: number | null = null, perDay: number | null = null): CustomerRecord =>
  customerRecord(id, { plan: planId, perMinute, perDay })
const key = keyRecord

/** `owner` and its first key `keyId`, made in one transaction (as `keys create --plan` makes them). */
async function createKeyWithCustomer(storage: Storage, keyId: string, owner: CustomerRecord): Promise<void> {
  const record = key(keyId, owner)
  await storage.keys.create(record, hashOf(keyId), testAudit('key.create')(record), {
    record: owner,
    audit: customerAudit('customer.create')(owner)
  })
}

/** A customer without keys. */
async function createCustomer(storage: Storage, owner: CustomerRecord): Promise<void> {
  assert.equal(await storage.customers.create(owner, customerAudit('customer.create')(owner)), true)
}

async function auditOf(storage: Storage, target: string): Promise<AuditEntry[]> {
  return (await storage.audit.page({ target, limit: 100 })).map(({ id: _id, ...entry }) => entry)
}

/** A key as the previous release (no customers) creates it during a rolling upgrade: no customer until adopted. */
async function insertPreviousReleaseKey(env: Record<string, string>, id: string, planId: string): Promise<void> {
  const url = env.DATABASE_URL!
  if (!url.startsWith('sqlite:')) {
    await adminQuery(
      `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at) VALUES ($1, $2, 'as_live_prev', NULL, $3, NULL, NULL, now())`,
      [id, hashOf(id), planId],
      url
    )
    return
  }
  const db = new DatabaseSync(url.slice('sqlite:'.length), { timeout: 5000 })
  try {
    db.prepare(
      `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at) VALUES (?, ?, 'as_live_prev', NULL, ?, NULL, NULL, ?)`
    ).run(id, hashOf(id), planId, AT)
  } finally {
    db.close()
  }
}

/** A transaction of its own on the PostgreSQL schema of `env`, left open: the caller commits it. */
async function openTransaction(t: TestContext, env: Record<string, string>): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: env.DATABASE_URL })
  await client.connect()
  defer(t, () => client.end())
  await client.query('BEGIN')
  return client
}

/** Waits until a connection of the schema of `env` waits for a lock (another's transaction holds). */
async function untilWaitingOnLock(env: Record<string, string>): Promise<void> {
  const schema = new URL(env.DATABASE_URL!).searchParams.get('application_name')
  await until(
    async () => {
      const rows = await adminQuery("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [schema])
      return rows.length > 0
    },
    { timeoutMs: 5000, what: 'the store’s transaction to wait for the lock' }
  )
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`PlanStore on ${backend.name}`, { skip }, () => {
    test('migrate seeds SPEC.md’s four plans, by id, none in use', async (t) => {
      const before = Date.now()
      const { storage } = await openStore(t, backend)
      const after = Date.now()
      const plans = await storage.plans.list()
      assert.deepEqual(
        plans.map(({ createdAt: _, ...rest }) => rest),
        [
          { id: 'business', name: 'Business', perMinute: 1000, perDay: 100_000, perMonth: null, customers: 0 },
          { id: 'enterprise', name: 'Enterprise', perMinute: null, perDay: null, perMonth: null, customers: 0 },
          { id: 'free', name: 'Free', perMinute: 60, perDay: 1000, perMonth: null, customers: 0 },
          { id: 'pro', name: 'Pro', perMinute: 300, perDay: 10_000, perMonth: null, customers: 0 }
        ]
      )
      for (const { id, createdAt } of plans) {
        assert.ok(Number.isInteger(createdAt) && createdAt >= before - 1 && createdAt <= after + 1, `${id} created at ${createdAt}`)
      }
      assert.deepEqual(await storage.plans.get('pro'), plans[3])
      assert.equal(await storage.plans.get('gold'), undefined)
      assert.equal(await storage.migrate(), 0, 'migrating again applies nothing')
    })

    test('create: a new plan and its audit row; a taken id writes nothing', async (t) => {
      const { storage } = await openStore(t, backend)
      const team = plan('team-2', { perMinute: 120, perDay: 5000 }, 'Team')
      assert.equal(await storage.plans.create(team, planAudit('plan.create')(team)), true)
      assert.deepEqual(await storage.plans.get('team-2'), { ...team, customers: 0 })
      const custom = plan('custom', null, 'Custom')
      assert.equal(await storage.plans.create(custom, planAudit('plan.create')(custom)), true)
      assert.deepEqual(await storage.plans.get('custom'), { ...custom, customers: 0 })
      assert.deepEqual(
        (await storage.plans.list()).map((p) => p.id),
        ['business', 'custom', 'enterprise', 'free', 'pro', 'team-2'],
        'ordered by id as bytes'
      )

      const again = plan('team-2', { perMinute: 1, perDay: 1 }, 'Other')
      assert.equal(await storage.plans.create(again, planAudit('plan.create')(again)), false)
      const seeded = plan('free', null, 'Free again')
      assert.equal(await storage.plans.create(seeded, planAudit('plan.create')(seeded)), false)
      assert.deepEqual(await storage.plans.get('team-2'), { ...team, customers: 0 }, 'the first plan stays')
      assert.equal((await storage.plans.get('free'))?.perMinute, 60)
      assert.deepEqual(await auditOf(storage, 'team-2'), [planAudit('plan.create')(team)], 'one row: the refused create wrote none')
      assert.deepEqual(await auditOf(storage, 'free'), [])
    })

    test('update: name, limits, custom; each with its audit row of before and after', async (t) => {
      const { storage } = await openStore(t, backend)
      const team = plan('team', { perMinute: 120, perDay: 5000 }, 'Team')
      await storage.plans.create(team, planAudit('plan.create')(team))
      const seen: Array<[PlanRecord, PlanRecord]> = []
      const audit = (before: PlanRecord, after: PlanRecord) => {
        seen.push([before, after])
        return planAudit('plan.update', { name: { from: before.name, to: after.name } })(after)
      }

      const renamed = await storage.plans.update('team', { name: 'Team plan' }, audit)
      assert.deepEqual(renamed, { outcome: 'updated', before: team, after: { ...team, name: 'Team plan' } })
      const limited = await storage.plans.update('team', { limits: { perMinute: 7, perDay: 70, perMonth: null } }, audit)
      assert.deepEqual(limited, {
        outcome: 'updated',
        before: { ...team, name: 'Team plan' },
        after: { ...team, name: 'Team plan', perMinute: 7, perDay: 70 }
      })
      const both = await storage.plans.update('team', { name: 'Team custom', limits: null }, audit)
      const custom = { ...team, name: 'Team custom', perMinute: null, perDay: null }
      assert.deepEqual(both, { outcome: 'updated', before: { ...team, name: 'Team plan', perMinute: 7, perDay: 70 }, after: custom })
      assert.deepEqual(await storage.plans.get('team'), { ...custom, customers: 0 })
      // Nothing to change still answers (and audits): refusing it is the plan service's call.
      assert.deepEqual(await storage.plans.update('team', {}, audit), { outcome: 'updated', before: custom, after: custom })
      const back = await storage.plans.update('team', { limits: { perMinute: 1, perDay: 2, perMonth: null } }, audit)
      assert.deepEqual(back, { outcome: 'updated', before: custom, after: { ...custom, perMinute: 1, perDay: 2 } })
      // A seeded plan is a plan like any other.
      const free = await storage.plans.update('free', { limits: { perMinute: 61, perDay: 1001, perMonth: null } }, audit)
      assert.equal(free.outcome === 'updated' && free.after.perMinute, 61)

      assert.deepEqual(await storage.plans.update('gold', { name: 'Gold' }, audit), { outcome: 'missing' })
      assert.equal(seen.length, 6, 'the audit callback ran once per update made, not for the missing plan')
      const rows = await auditOf(storage, 'team')
      assert.deepEqual(
        rows.map((row) => [row.action, row.target.type, row.target.name, row.changes]),
        [
          ['plan.update', 'plan', 'Team custom', { name: { from: 'Team custom', to: 'Team custom' } }],
          ['plan.update', 'plan', 'Team custom', { name: { from: 'Team custom', to: 'Team custom' } }],
          ['plan.update', 'plan', 'Team custom', { name: { from: 'Team plan', to: 'Team custom' } }],
          ['plan.update', 'plan', 'Team plan', { name: { from: 'Team plan', to: 'Team plan' } }],
          ['plan.update', 'plan', 'Team plan', { name: { from: 'Team', to: 'Team plan' } }],
          ['plan.create', 'plan', 'Team', {}]
        ]
      )
    })

    test('a monthly quota: created, set, changed, removed with the limits, and gone when the plan becomes custom', async (t) => {
      const { storage } = await openStore(t, backend)
      // The largest quota is past 2^32 and exact both ways (an int8 on PostgreSQL).
      const metered = plan('metered', { perMinute: 300, perDay: 10_000, perMonth: 1_000_000_000_000 }, 'Metered')
      assert.equal(await storage.plans.create(metered, planAudit('plan.create')(metered)), true)
      assert.deepEqual(await storage.plans.get('metered'), { ...metered, customers: 0 })
      assert.deepEqual(
        (await storage.plans.list()).find((p) => p.id === 'metered'),
        { ...metered, customers: 0 }
      )
      const audit = (_before: PlanRecord, after: PlanRecord) => planAudit('plan.update')(after)
      const limits = (perMonth: number | null) => ({ limits: { perMinute: 300, perDay: 10_000, perMonth } })

      const lower = await storage.plans.update('metered', limits(100_000), audit)
      assert.deepEqual(lower, { outcome: 'updated', before: metered, after: { ...metered, perMonth: 100_000 } })
      const renamed = await storage.plans.update('metered', { name: 'Metered 2' }, audit)
      assert.equal(renamed.outcome === 'updated' && renamed.after.perMonth, 100_000, 'a change of name keeps the quota')
      const none = await storage.plans.update('metered', limits(null), audit)
      assert.equal(none.outcome === 'updated' && none.after.perMonth, null)
      await storage.plans.update('metered', limits(5000), audit)
      const custom = await storage.plans.update('metered', { limits: null }, audit)
      assert.deepEqual(custom.outcome === 'updated' && custom.after, {
        ...metered,
        name: 'Metered 2',
        perMinute: null,
        perDay: null,
        perMonth: null
      })
      assert.equal((await storage.plans.get('free'))?.perMonth, null, 'the seeded plans have none')
    })

    test('a plan cannot become custom while a customer on it (keys revoked, or none, too) has no numbers of its own; nothing changes', async (t) => {
      const { storage } = await openStore(t, backend)
      const team = plan('team', { perMinute: 120, perDay: 5000 }, 'Team')
      await storage.plans.create(team, planAudit('plan.create')(team))
      await createKeyWithCustomer(storage, 'key_team_both', customer('cus_TeamBoth00000000', 'team', 5, 50))
      await createKeyWithCustomer(storage, 'key_team_minute', customer('cus_TeamMinute000000', 'team', 5, null))
      await createKeyWithCustomer(storage, 'key_team_revoked', customer('cus_TeamRevoked00000', 'team'))
      await storage.keys.revoke('key_team_revoked', AT + 1, testAudit('key.revoke'))
      await createCustomer(storage, customer('cus_TeamKeyless00000', 'team'))
      await createKeyWithCustomer(storage, 'key_free_none', customer('cus_FreeNone00000000', 'free'))
      const audit = (_before: PlanRecord, after: PlanRecord) => planAudit('plan.update')(after)

      assert.deepEqual(await storage.plans.update('team', { name: 'Custom', limits: null }, audit), {
        outcome: 'customers_without_limits',
        customers: 3
      })
      assert.deepEqual(await storage.plans.get('team'), { ...team, customers: 4 }, 'neither the name nor the limits changed')
      assert.deepEqual(await auditOf(storage, 'team'), [planAudit('plan.create')(team)])

      // Other changes to the plan are not held back by those customers.
      const limited = await storage.plans.update('team', { limits: { perMinute: 9, perDay: 90, perMonth: null } }, audit)
      assert.equal(limited.outcome, 'updated')

      // A key's numbers are its customer's: setting the one missing through the key counts.
      await storage.keys.update('key_team_minute', { perDay: 60 }, keyUpdateAudit)
      assert.deepEqual(await storage.plans.update('team', { limits: null }, audit), { outcome: 'customers_without_limits', customers: 2 })
      const numbers = customerAudit('customer.update')
      assert.equal((await storage.customers.update('cus_TeamRevoked00000', { perMinute: 1, perDay: 2 }, numbers)).outcome, 'updated')
      assert.deepEqual(await storage.plans.update('team', { limits: null }, audit), { outcome: 'customers_without_limits', customers: 1 })
      assert.equal((await storage.customers.update('cus_TeamKeyless00000', { plan: 'free' }, numbers)).outcome, 'updated')

      const custom = await storage.plans.update('team', { limits: null }, audit)
      assert.deepEqual(custom, {
        outcome: 'updated',
        before: { ...team, perMinute: 9, perDay: 90 },
        after: { ...team, perMinute: null, perDay: null }
      })
      assert.deepEqual(await storage.plans.get('team'), { ...team, perMinute: null, perDay: null, customers: 3 })
    })

    test('delete: an unused plan goes; one any customer is on, even one without a live key, stays', async (t) => {
      const { storage } = await openStore(t, backend)
      const unused = plan('unused', { perMinute: 1, perDay: 1 })
      await storage.plans.create(unused, planAudit('plan.create')(unused))
      const deleted = await storage.plans.delete('unused', planAudit('plan.delete'))
      assert.deepEqual(deleted, { outcome: 'deleted', plan: unused })
      assert.equal(await storage.plans.get('unused'), undefined)
      assert.deepEqual(
        (await auditOf(storage, 'unused')).map((row) => [row.action, row.target]),
        [
          ['plan.delete', { type: 'plan', id: 'unused', name: 'Plan unused' }],
          ['plan.create', { type: 'plan', id: 'unused', name: 'Plan unused' }]
        ]
      )
      assert.deepEqual(await storage.plans.delete('unused', planAudit('plan.delete')), { outcome: 'missing' })

      const used = plan('used', { perMinute: 1, perDay: 1 })
      await storage.plans.create(used, planAudit('plan.create')(used))
      await createKeyWithCustomer(storage, 'key_used_1', customer('cus_Used000000000001', 'used'))
      await createKeyWithCustomer(storage, 'key_used_2', customer('cus_Used000000000002', 'used'))
      // A second key of the same customer: a plan counts customers, not keys.
      const second = key('key_used_2b', customer('cus_Used000000000002', 'used'))
      await storage.keys.create(second, hashOf(second.id), testAudit('key.create')(second))
      assert.deepEqual(await storage.plans.delete('used', planAudit('plan.delete')), { outcome: 'in_use', customers: 2 })
      await storage.keys.revoke('key_used_1', AT + 1, testAudit('key.revoke'))
      await storage.keys.update('key_used_2', { plan: 'free' }, keyUpdateAudit)
      assert.equal((await storage.keys.get('key_used_2b'))?.plan, 'free', 'the plan is the customer’s: all its keys moved')
      assert.deepEqual(await storage.plans.get('used'), { ...used, customers: 1 }, 'the customer whose key is revoked is still on it')
      assert.deepEqual(await storage.plans.delete('used', planAudit('plan.delete')), { outcome: 'in_use', customers: 1 })
      assert.deepEqual(await storage.plans.get('used'), { ...used, customers: 1 })
      assert.deepEqual(await auditOf(storage, 'used'), [planAudit('plan.create')(used)], 'refused deletes wrote nothing')
      assert.deepEqual(await storage.plans.delete('free', planAudit('plan.delete')), { outcome: 'in_use', customers: 1 })
      const pro = await planOf(storage, 'pro')
      assert.deepEqual(await storage.plans.delete('pro', planAudit('plan.delete')), { outcome: 'deleted', plan: pro })
      assert.equal(await storage.plans.get('pro'), undefined, 'a seeded plan no customer is on can go too')
    })

    test('a key the previous release made (no customer yet) is adopted before a plan’s use is counted', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const old = plan('old', { perMinute: 1, perDay: 1 })
      await storage.plans.create(old, planAudit('plan.create')(old))
      await insertPreviousReleaseKey(env, 'key_PrevRelease00001', 'old')
      assert.equal((await storage.plans.get('old'))?.customers, 0, 'not a customer yet')
      const audit = (_before: PlanRecord, after: PlanRecord) => planAudit('plan.update')(after)
      assert.deepEqual(await storage.plans.update('old', { limits: null }, audit), { outcome: 'customers_without_limits', customers: 1 })
      assert.equal((await storage.keys.get('key_PrevRelease00001'))?.customerId, 'cus_PrevRelease00001', 'adopted by the check')

      await insertPreviousReleaseKey(env, 'key_PrevRelease00002', 'old')
      assert.deepEqual(await storage.plans.delete('old', planAudit('plan.delete')), { outcome: 'in_use', customers: 2 })
      assert.deepEqual(await planOf(storage, 'old'), old)
      assert.deepEqual(await auditOf(storage, 'old'), [planAudit('plan.create')(old)])
    })

    test('a customer may be on a new plan, and on no plan that does not exist', async (t) => {
      const { storage } = await openStore(t, backend)
      const team = plan('team', { perMinute: 120, perDay: 5000 })
      await storage.plans.create(team, planAudit('plan.create')(team))
      await createKeyWithCustomer(storage, 'key_on_team', customer('cus_OnTeam0000000000', 'team'))
      assert.equal((await storage.keys.get('key_on_team'))?.plan, 'team')
      assert.equal((await storage.customers.get('cus_OnTeam0000000000'))?.plan, 'team')
      assert.equal((await storage.plans.get('team'))?.customers, 1)

      const foreignKey = /FOREIGN KEY constraint failed|violates foreign key constraint/
      const gold = customer('cus_OnGold0000000000', 'gold')
      await assert.rejects(createKeyWithCustomer(storage, 'key_on_gold', gold), foreignKey)
      await assert.rejects(storage.customers.create(gold, customerAudit('customer.create')(gold)), foreignKey)
      assert.equal(await storage.keys.get('key_on_gold'), undefined)
      assert.equal(await storage.customers.get(gold.id), undefined)
      await assert.rejects(storage.keys.update('key_on_team', { plan: 'gold' }, keyUpdateAudit), foreignKey)
      await assert.rejects(storage.customers.update('cus_OnTeam0000000000', { plan: 'gold' }, customerAudit('customer.update')), foreignKey)
      assert.equal((await storage.keys.get('key_on_team'))?.plan, 'team')
      assert.equal((await storage.customers.get('cus_OnTeam0000000000'))?.plan, 'team')
      assert.deepEqual(
        [
          ...(await auditOf(storage, 'key_on_gold')),
          ...(await auditOf(storage, gold.id)),
          ...(await auditOf(storage, 'key_on_team')),
          ...(await auditOf(storage, 'cus_OnTeam0000000000'))
        ].map((row) => row.action),
        ['key.create', 'customer.create'],
        'the refused writes left no audit row'
      )
    })

    test('the audit log accepts plan and customer actions and targets, and no other', async (t) => {
      const { storage } = await openStore(t, backend)
      const entries: AuditEntry[] = [
        planAudit('plan.create')({ id: 'a', name: 'A' }),
        planAudit('plan.update', { perMinute: { from: 1, to: null } })({ id: 'a', name: 'A' }),
        planAudit('plan.delete')({ id: 'a', name: 'A' })
      ]
      for (const entry of entries) await storage.audit.append(entry)
      for (const action of ['customer.create', 'customer.update', 'customer.unban'] as const) {
        await storage.audit.append(customerAudit(action)({ id: 'c', name: 'C' }))
      }
      assert.deepEqual(await auditOf(storage, 'a'), [...entries].reverse())
      assert.deepEqual(
        (await auditOf(storage, 'c')).map((row) => [row.action, row.target.type]),
        [
          ['customer.unban', 'customer'],
          ['customer.update', 'customer'],
          ['customer.create', 'customer']
        ]
      )
      const bad = { ...entries[0]!, action: 'plan.rename' } as unknown as AuditEntry
      await assert.rejects(storage.audit.append(bad), /CHECK constraint failed|violates check constraint/)
      const badTarget = { ...entries[0]!, target: { type: 'pet', id: 'a', name: null } } as unknown as AuditEntry
      await assert.rejects(storage.audit.append(badTarget), /CHECK constraint failed|violates check constraint/)
    })

    test('the database refuses a plan with one limit, or a limit or a monthly quota below 1', async (t) => {
      const { storage } = await openStore(t, backend)
      const half = { ...plan('half', { perMinute: 5, perDay: 5 }), perDay: null }
      await assert.rejects(storage.plans.create(half, planAudit('plan.create')(half)), /CHECK constraint failed|violates check constraint/)
      const zero = plan('zero', { perMinute: 0, perDay: 5 })
      await assert.rejects(storage.plans.create(zero, planAudit('plan.create')(zero)), /CHECK constraint failed|violates check constraint/)
      const noMonth = plan('no-month', { perMinute: 5, perDay: 5, perMonth: 0 })
      await assert.rejects(
        storage.plans.create(noMonth, planAudit('plan.create')(noMonth)),
        /CHECK constraint failed|violates check constraint/
      )
      assert.equal(await storage.plans.get('half'), undefined)
      assert.equal(await storage.plans.get('no-month'), undefined)
      assert.deepEqual(await auditOf(storage, 'half'), [])
    })
  })
}

async function planOf(storage: Storage, id: string): Promise<PlanRecord | undefined> {
  const found = await storage.plans.get(id)
  if (found === undefined) return undefined
  const { customers: _, ...record } = found
  return record
}

// SQLite has one writer at a time, so no customer can be written between a check and its change.
// PostgreSQL's check sees a customer committed meanwhile: the plan's row lock waits for its insert.
describe('PlanStore on PostgreSQL, a customer created while a plan change waits', { skip: await backendSkip(postgresBackend) }, () => {
  test('a customer without numbers committed while the plan is made custom is counted; the plan stays', async (t) => {
    const { storage, env } = await openStore(t, postgresBackend)
    const team = plan('team', { perMinute: 120, perDay: 5000 })
    await storage.plans.create(team, planAudit('plan.create')(team))
    const other = await openTransaction(t, env)
    // Its foreign key locks the plan's row (FOR KEY SHARE) until it commits.
    await other.query(
      `INSERT INTO customers (id, name, plan, counter_id, created_at) VALUES ('cus_Meanwhile0000000', 'meanwhile', 'team', 'cus_Meanwhile0000000', now())`
    )
    const custom = storage.plans.update('team', { limits: null }, (_before, after) => planAudit('plan.update')(after))
    await untilWaitingOnLock(env)
    await other.query('COMMIT')
    assert.deepEqual(await custom, { outcome: 'customers_without_limits', customers: 1 })
    assert.deepEqual(await storage.plans.get('team'), { ...team, customers: 1 })
    assert.deepEqual(await auditOf(storage, 'team'), [planAudit('plan.create')(team)])
  })

  test('a key the previous release made while the plan is deleted is adopted and counted; the plan stays', async (t) => {
    const { storage, env } = await openStore(t, postgresBackend)
    const team = plan('team', { perMinute: 120, perDay: 5000 })
    await storage.plans.create(team, planAudit('plan.create')(team))
    const other = await openTransaction(t, env)
    await other.query(
      `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, created_at) VALUES ('key_Meanwhile0000000', $1, 'as_live_mean', NULL, 'team', now())`,
      [hashOf('meanwhile')]
    )
    const deleting = storage.plans.delete('team', planAudit('plan.delete'))
    await untilWaitingOnLock(env)
    await other.query('COMMIT')
    assert.deepEqual(await deleting, { outcome: 'in_use', customers: 1 })
    assert.equal((await storage.customers.get('cus_Meanwhile0000000'))?.plan, 'team')
    assert.deepEqual(await auditOf(storage, 'team'), [planAudit('plan.create')(team)])
  })
})

/** A file as the release before plans left it: migrations 1 to 6 applied as SqliteStorage applies them. */
function versionSixFile(t: TestContext): string {
  const path = join(tempDir(t), 'store.db')
  const db = new DatabaseSync(path)
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT')
  for (const migration of SQLITE_MIGRATIONS.slice(0, 6)) {
    db.exec('BEGIN IMMEDIATE')
    db.exec(migration.sql)
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, AT)
    db.exec('COMMIT')
  }
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at,
       previous_secret_hash, previous_secret_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  insertKey.run(
    'key_AAAAAAAAAAAAAAAA',
    hashOf('a'),
    'as_live_AAAA',
    'shop',
    'pro',
    7,
    null,
    AT,
    AT + 86_400_000,
    null,
    hashOf('a0'),
    AT + 60_000
  )
  insertKey.run('key_BBBBBBBBBBBBBBBB', hashOf('b'), 'as_live_BBBB', null, 'enterprise', 5, 9, AT + 1, null, AT + 2, null, null)
  const insertAudit = db.prepare(
    `INSERT INTO audit_events (at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes,
       request_id, remote_address, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  insertAudit.run(
    AT,
    'operator',
    'op_alice',
    'alice',
    'key.create',
    'key',
    'key_AAAAAAAAAAAAAAAA',
    'shop',
    '{}',
    'req-1',
    '10.0.0.1',
    'curl'
  )
  insertAudit.run(AT + 2, 'cli', 'bob', 'bob', 'key.revoke', 'key', 'key_BBBBBBBBBBBBBBBB', null, '{}', null, null, null)
  insertAudit.run(AT + 3, 'cli', 'bob', 'bob', 'operator.create', 'operator', 'op_carol', 'carol', '{}', null, null, null)
  // The newest entry gone (by hand): AUTOINCREMENT still never hands its id out again.
  db.exec('DELETE FROM audit_events WHERE id = 3')
  db.close()
  return path
}

interface FileState {
  keys: unknown[]
  audit: unknown[]
  indexes: Array<{ name: string; tbl_name: string; sql: string | null }>
  sequence: unknown[]
}

function stateOf(path: string): FileState {
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    return {
      keys: db.prepare('SELECT * FROM api_keys ORDER BY id').all(),
      audit: db.prepare('SELECT * FROM audit_events ORDER BY id').all(),
      indexes: db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all() as FileState['indexes'],
      sequence: db.prepare("SELECT name, seq FROM sqlite_sequence WHERE name = 'audit_events'").all()
    }
  } finally {
    db.close()
  }
}

describe('SQLite migrations 7 to 9 on a version-6 file', () => {
  test('rebuild api_keys and audit_events keeping every row, index and the audit id sequence; each key gets a customer', async (t) => {
    const path = versionSixFile(t)
    const before = stateOf(path)
    assert.equal(before.keys.length, 2)
    assert.equal(before.audit.length, 2)

    const storage = await openStorage(t, { DATABASE_URL: `sqlite:${path}` })
    assert.equal(await storage.migrate(), SQLITE_MIGRATIONS.length - 6)
    const after = stateOf(path)
    // Migration 8 adds the scopes, both for every key made before; migration 9 a customer of its own.
    const rows = (keys: unknown[]) => keys.map((key) => ({ ...(key as Record<string, unknown>) }))
    assert.deepEqual(
      rows(after.keys),
      rows(before.keys).map((key) => ({ ...key, scopes: 'pets:read pets:write', customer_id: `cus_${String(key.id).slice(4)}` }))
    )
    assert.deepEqual(after.audit, before.audit)
    assert.deepEqual(after.sequence, before.sequence)
    const added: Record<string, string> = {
      api_keys_customer: 'api_keys',
      api_keys_plan: 'api_keys',
      customers_created: 'customers',
      customers_plan: 'customers',
      sqlite_autoindex_customers_1: 'customers',
      sqlite_autoindex_customers_2: 'customers',
      sqlite_autoindex_customers_3: 'customers',
      sqlite_autoindex_plans_1: 'plans'
    }
    assert.deepEqual(
      after.indexes.filter((index) => !(index.name in added)),
      before.indexes,
      'every index of version 6 is there again, by name, table and definition'
    )
    assert.deepEqual(
      Object.fromEntries(after.indexes.filter((index) => index.name in added).map((index) => [index.name, index.tbl_name])),
      added
    )

    const db = new DatabaseSync(path, { readOnly: true })
    t.after(() => db.close())
    assert.deepEqual(db.prepare('PRAGMA foreign_key_check').all(), [])
    assert.deepEqual(
      db
        .prepare('PRAGMA integrity_check')
        .all()
        .map((row) => ({ ...row })),
      [{ integrity_check: 'ok' }]
    )
    assert.deepEqual(
      db
        .prepare("SELECT name FROM sqlite_master WHERE name GLOB '*_new*'")
        .all()
        .map((row) => row.name),
      []
    )

    // The keys are the store's as before, on plans that now are rows.
    assert.deepEqual(
      (await storage.keys.list()).map((k) => [k.id, k.plan, k.perMinute, k.perDay, k.revokedAt, k.previousSecretExpiresAt]),
      [
        ['key_AAAAAAAAAAAAAAAA', 'pro', 7, null, null, AT + 60_000],
        ['key_BBBBBBBBBBBBBBBB', 'enterprise', 5, 9, AT + 2, null]
      ]
    )
    assert.equal((await storage.keys.findByHash(hashOf('a0')))?.id, 'key_AAAAAAAAAAAAAAAA', 'the previous secret still finds its key')
    // Each key is the only key of a customer of its own, with its name (its id when it has none), plan, numbers and counters.
    assert.deepEqual(
      (await storage.keys.list()).map((k) => [k.customerId, k.counterId]),
      [
        ['cus_AAAAAAAAAAAAAAAA', 'key_AAAAAAAAAAAAAAAA'],
        ['cus_BBBBBBBBBBBBBBBB', 'key_BBBBBBBBBBBBBBBB']
      ]
    )
    assert.deepEqual(
      (await storage.customers.page({ limit: 10 })).map((c) => [c.id, c.name, c.plan, c.perMinute, c.perDay, c.createdAt, c.keys]),
      [
        ['cus_BBBBBBBBBBBBBBBB', 'key_BBBBBBBBBBBBBBBB', 'enterprise', 5, 9, AT + 1, 0],
        ['cus_AAAAAAAAAAAAAAAA', 'shop', 'pro', 7, null, AT, 1]
      ]
    )
    assert.deepEqual(
      (await storage.plans.list()).map((p) => [p.id, p.customers]),
      [
        ['business', 0],
        ['enterprise', 1],
        ['free', 0],
        ['pro', 1]
      ]
    )
    await storage.audit.append(planAudit('plan.update')({ id: 'pro', name: 'Pro' }))
    const [newest] = await storage.audit.page({ limit: 1 })
    assert.equal(newest?.id, '4', 'the next audit id follows the highest ever handed out')
    assert.equal(newest?.target.type, 'plan')
    await assert.rejects(
      createKeyWithCustomer(storage, 'key_CCCCCCCCCCCCCCCC', customer('cus_CCCCCCCCCCCCCCCC', 'gold')),
      /FOREIGN KEY constraint failed/
    )
  })
})

interface Constraint extends QueryResultRow {
  table: string
  name: string
  definition: string
}

const CONSTRAINTS = `SELECT conrelid::regclass::text AS "table", conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
  WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text IN ('api_keys', 'audit_events') ORDER BY 1, 2`

describe('PostgreSQL migrations 7 to 9 on a version-6 schema', { skip: await backendSkip(postgresBackend) }, () => {
  test('only adds: the previous release’s rows and writes stay valid; plan and audit checks are widened', async (t) => {
    const schema = await createSchema()
    defer(t, () => schema.drop())
    const sql = <R extends QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []) =>
      adminQuery<R>(text, values, schema.url)
    await sql(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())'
    )
    for (const migration of POSTGRES_MIGRATIONS.slice(0, 6)) {
      await sql(
        `BEGIN; ${migration.sql}; INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, 'v${migration.version}'); COMMIT`
      )
    }
    // What the previous release writes: one of its four plans, a key.* audit action.
    const insertKey = `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, previous_secret_hash)
      VALUES ($1, $2, 'as_live_AAAA', 'shop', 'pro', 7, NULL, now(), $3)`
    const insertAudit = `INSERT INTO audit_events (at, actor_type, actor_id, actor_name, action, target_type, target_id, changes)
      VALUES (now(), 'cli', 'bob', 'bob', $1, 'key', $2, '{}')`
    await sql(insertKey, ['key_AAAAAAAAAAAAAAAA', hashOf('a'), hashOf('a0')])
    await sql(insertAudit, ['key.create', 'key_AAAAAAAAAAAAAAAA'])
    const keysBefore = await sql('SELECT * FROM api_keys ORDER BY id')
    const auditBefore = await sql('SELECT * FROM audit_events ORDER BY id')
    const constraintsBefore = await sql<Constraint>(CONSTRAINTS)

    const storage = await openStorage(t, { DATABASE_URL: schema.url })
    assert.equal(await storage.migrate(), POSTGRES_MIGRATIONS.length - 6)
    assert.deepEqual(
      await sql('SELECT * FROM api_keys ORDER BY id'),
      keysBefore.map((key) => ({ ...key, scopes: 'pets:read pets:write', customer_id: `cus_${String(key.id).slice(4)}` })),
      'every key as it was, with both scopes (migration 8) and a customer of its own (migration 9)'
    )
    assert.deepEqual(await sql('SELECT * FROM audit_events ORDER BY id'), auditBefore)
    const widened = ['api_keys_plan_check', 'audit_events_action_check', 'audit_events_target_type_check']
    const added = ['api_keys_plan_fkey', 'api_keys_customer_id_fkey']
    const constraintsAfter = await sql<Constraint>(CONSTRAINTS)
    assert.deepEqual(
      constraintsAfter.filter((c) => !widened.includes(c.name) && !added.includes(c.name)),
      constraintsBefore.filter((c) => !widened.includes(c.name)),
      'every other constraint is as it was'
    )
    const byName = new Map(constraintsAfter.map((c) => [c.name, c.definition]))
    assert.equal(byName.get('api_keys_plan_check'), undefined)
    assert.equal(byName.get('api_keys_plan_fkey'), 'FOREIGN KEY (plan) REFERENCES plans(id)')
    assert.equal(byName.get('api_keys_customer_id_fkey'), 'FOREIGN KEY (customer_id) REFERENCES customers(id)')
    assert.match(byName.get('audit_events_action_check')!, /'plan\.delete'::text, 'customer\.create'::text/)
    assert.match(byName.get('audit_events_target_type_check')!, /'plan'::text, 'customer'::text/)

    // The previous release keeps writing as it did: its new key is on the plan once it has a customer.
    await sql(insertKey, ['key_BBBBBBBBBBBBBBBB', hashOf('b'), null])
    await sql(insertAudit, ['key.update', 'key_BBBBBBBBBBBBBBBB'])
    const plans = async () => (await storage.plans.list()).map((p) => [p.id, p.perMinute, p.perDay, p.customers])
    assert.deepEqual(await plans(), [
      ['business', 1000, 100_000, 0],
      ['enterprise', null, null, 0],
      ['free', 60, 1000, 0],
      ['pro', 300, 10_000, 1]
    ])
    assert.equal(await storage.customers.adoptKeys(), 1)
    assert.deepEqual(await plans(), [
      ['business', 1000, 100_000, 0],
      ['enterprise', null, null, 0],
      ['free', 60, 1000, 0],
      ['pro', 300, 10_000, 2]
    ])
    assert.equal((await storage.keys.findByHash(hashOf('a0')))?.id, 'key_AAAAAAAAAAAAAAAA')
  })
})
