import assert from 'node:assert/strict'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test, type TestContext } from 'node:test'
import pg from 'pg'
import type { AuditAction } from '@animal-store/contract'
import { ManualClock } from '../../src/base/clock.ts'
import type { AuditEntry } from '../../src/storage/audit/types.ts'
import { ADOPT_KEYS } from '../../src/storage/customers/row.ts'
import type { CustomerRecord, CustomerWithKeys } from '../../src/storage/customers/types.ts'
import type { ApiKeyRecord } from '../../src/storage/keys/types.ts'
import { SqliteStorage } from '../../src/storage/sqlite/index.ts'
import type { Storage } from '../../src/storage/types.ts'
import { testAudit } from '../helpers/audit.ts'
import { AT, cliAudit, customerRecord, hashOf, keyRecord } from '../helpers/records.ts'
import { backendSkip, openStorage, openStore, postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { adminQuery } from '../helpers/postgres.ts'
import { defer, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

// The customer store of each backend against its real database (a temporary SQLite file, a
// PostgreSQL schema of the test's own): what it reads and finds, the external id kept unique, the
// plan and numbers copied onto the customer's keys (read with SQL: the previous release reads
// them there), a customer of its own for each key the previous release made, and every change
// written in one transaction with its audit row.

const CHECK_FAILED = /CHECK constraint failed|violates check constraint/
const FOREIGN_KEY_FAILED = /FOREIGN KEY constraint failed|violates foreign key constraint/

const customerAudit = (action: AuditAction, changes?: AuditEntry['changes']) => cliAudit('customer', action, changes)

/** An entry the audit table's CHECK refuses: the change it goes with must not be written either. */
const refusedAudit = (): AuditEntry => ({
  ...customerAudit('customer.update')({ id: 'x', name: 'x' }),
  action: 'customer.rename' as AuditAction
})

const customer = customerRecord
const key = keyRecord

/** KeyStore.update's audit: the key.update entry alone (the key service adds its customer's). */
const keyAudit = (_before: ApiKeyRecord, after: ApiKeyRecord): AuditEntry[] => [testAudit('key.update')(after)]

/** What CustomerStore.get answers for `record` with `keys` keys not revoked. */
const stored = (record: CustomerRecord, keys = 0): CustomerWithKeys => ({ ...record, keys })

/** The record without its count of keys (update's before and after carry it too). */
const recordOf = ({ keys: _, ...record }: CustomerRecord & { keys?: number }): CustomerRecord => record

async function createCustomer(storage: Storage, record: CustomerRecord): Promise<void> {
  assert.equal(await storage.customers.create(record, customerAudit('customer.create')(record)), true, `create ${record.id}`)
}

/** `owner` and its first key, made in one transaction (as `keys create --plan` makes them). */
async function createKeyWithCustomer(storage: Storage, keyId: string, owner: CustomerRecord): Promise<void> {
  const record = key(keyId, owner)
  const customerEntry = { record: owner, audit: customerAudit('customer.create')(owner) }
  await storage.keys.create(record, hashOf(keyId), testAudit('key.create')(record), customerEntry)
}

/** Another key of an existing customer. */
async function createKeyFor(storage: Storage, keyId: string, owner: CustomerRecord): Promise<void> {
  const record = key(keyId, owner)
  await storage.keys.create(record, hashOf(keyId), testAudit('key.create')(record))
}

async function auditOf(storage: Storage, target: string): Promise<AuditEntry[]> {
  return (await storage.audit.page({ target, limit: 100 })).map(({ id: _id, ...entry }) => entry)
}

/** What the key store says `keyId` runs under: its customer, counters, plan and numbers. */
async function servedAs(
  storage: Storage,
  keyId: string
): Promise<Pick<ApiKeyRecord, 'customerId' | 'counterId' | 'plan' | 'perMinute' | 'perDay'>> {
  const found = await storage.keys.get(keyId)
  assert.ok(found, `key ${keyId}`)
  return { customerId: found.customerId, counterId: found.counterId, plan: found.plan, perMinute: found.perMinute, perDay: found.perDay }
}

const actionsOn = async (storage: Storage, target: string) => (await auditOf(storage, target)).map((entry) => entry.action)

/** The store's database through a connection of the test's own: what the stores do not show, and what the previous release writes. */
interface RawDatabase {
  /** Runs `sql` (parameters written `?`) and returns its rows. */
  query(sql: string, ...values: unknown[]): Promise<Array<Record<string, unknown>>>
  /** A time column's value from Unix milliseconds given as a parameter. */
  time: string
}

async function rawDatabase(t: TestContext, env: Record<string, string>): Promise<RawDatabase> {
  const url = env.DATABASE_URL!
  if (url.startsWith('sqlite:')) {
    const db = new DatabaseSync(url.slice('sqlite:'.length), { timeout: 5000 })
    defer(t, () => db.close())
    return { query: async (sql, ...values) => db.prepare(sql).all(...(values as never[])), time: '?' }
  }
  return {
    query: (sql, ...values) => adminQuery(numbered(sql), values, url),
    time: "(timestamptz 'epoch' + ?::int8 * interval '1 millisecond')"
  }
}

/** `?` parameters numbered as PostgreSQL writes them. */
function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** The plan and numbers in the own columns of `customerId`'s keys (what the previous release reads), by key id. */
async function ownColumns(db: RawDatabase, customerId: string): Promise<Array<[string, string, number | null, number | null]>> {
  const rows = await db.query('SELECT id, plan, per_minute, per_day FROM api_keys WHERE customer_id = ? ORDER BY id', customerId)
  const number = (value: unknown) => (value === null ? null : Number(value))
  return rows.map((row) => [String(row.id), String(row.plan), number(row.per_minute), number(row.per_day)])
}

interface PreviousReleaseKey {
  id: string
  name: string | null
  plan: string
  perMinute: number | null
  perDay: number | null
  createdAt: number
  revokedAt?: number
}

/** A key as the previous release (which knows no customers) inserts it during a rolling upgrade: no customer_id. */
async function insertPreviousReleaseKey(db: RawDatabase, k: PreviousReleaseKey): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ${db.time}, ${db.time})`,
    k.id,
    hashOf(k.id),
    `as_live_${k.id.slice(-4)}`,
    k.name,
    k.plan,
    k.perMinute,
    k.perDay,
    k.createdAt,
    k.revokedAt ?? null
  )
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`CustomerStore on ${backend.name}`, { skip }, () => {
    test('create and get: the customer with no keys yet, and its audit row; an unknown id is undefined', async (t) => {
      const { storage } = await openStore(t, backend)
      const acme = customer('cus_AcmeCorp00000001', { name: 'ACME', externalId: 'crm-1', plan: 'enterprise', perMinute: 5, perDay: 50 })
      await createCustomer(storage, acme)
      assert.deepEqual(await storage.customers.get(acme.id), stored(acme))
      assert.equal(await storage.customers.get('cus_Nobody0000000000'), undefined)
      assert.deepEqual(await auditOf(storage, acme.id), [customerAudit('customer.create')(acme)])
    })

    test('page: newest first (then by id), a `before` cursor, a limit, by plan, and by search of id, name or external id in any case', async (t) => {
      const { storage } = await openStore(t, backend)
      const acme = customer('cus_AcmeCorp00000001', { name: 'ACME Corp', externalId: 'crm-100', plan: 'pro', createdAt: AT })
      const globex = customer('cus_Globex0000000002', { name: 'Globex', externalId: 'CRM-200', createdAt: AT + 1 })
      const initech = customer('cus_Initech000000003', { name: 'Émile Initech', plan: 'pro', createdAt: AT + 1 })
      const umbrella = customer('cus_Umbrella00000004', { name: 'umbrella', externalId: 'acme-eu', plan: 'business', createdAt: AT + 2 })
      for (const record of [globex, umbrella, acme, initech]) await createCustomer(storage, record)
      const ids = async (query: Parameters<Storage['customers']['page']>[0]) => (await storage.customers.page(query)).map((c) => c.id)

      assert.deepEqual(
        await storage.customers.page({ limit: 10 }),
        [umbrella, initech, globex, acme].map((record) => stored(record))
      )
      assert.deepEqual(await ids({ limit: 2 }), [umbrella.id, initech.id])
      const after = (record: CustomerRecord) => ({ createdAt: record.createdAt, id: record.id })
      assert.deepEqual(await ids({ before: after(initech), limit: 2 }), [globex.id, acme.id], 'the same moment, a smaller id')
      assert.deepEqual(await ids({ before: after(globex), limit: 2 }), [acme.id])
      assert.deepEqual(await ids({ before: after(acme), limit: 2 }), [])

      assert.deepEqual(await ids({ plan: 'pro', limit: 10 }), [initech.id, acme.id])
      assert.deepEqual(await ids({ plan: 'enterprise', limit: 10 }), [])
      assert.deepEqual(await ids({ search: 'acme', limit: 10 }), [umbrella.id, acme.id], 'an external id, a name in capitals')
      assert.deepEqual(await ids({ search: 'crm-200', limit: 10 }), [globex.id], 'an external id in capitals')
      assert.deepEqual(await ids({ search: 'initech0', limit: 10 }), [initech.id], 'the id, in capitals')
      assert.deepEqual(await ids({ search: 'cus_', limit: 10 }), [umbrella.id, initech.id, globex.id, acme.id])
      assert.deepEqual(await ids({ search: 'émile', limit: 10 }), [initech.id], 'beyond ASCII')
      assert.deepEqual(await ids({ search: 'acme', plan: 'pro', limit: 10 }), [acme.id], 'every filter given')
      assert.deepEqual(await ids({ search: 'acme', before: after(umbrella), limit: 10 }), [acme.id])
      assert.deepEqual(await ids({ search: 'hooli', limit: 10 }), [])
    })

    test('keys: a customer counts its keys not revoked; a key names a customer that exists', async (t) => {
      const { storage } = await openStore(t, backend)
      const acme = customer('cus_AcmeCorp00000001')
      const other = customer('cus_Other0000000002')
      await createKeyWithCustomer(storage, 'key_Acme000000000001', acme)
      await createKeyFor(storage, 'key_Acme000000000002', acme)
      await createKeyFor(storage, 'key_Acme000000000003', acme)
      await createCustomer(storage, other)
      assert.equal((await storage.customers.get(acme.id))?.keys, 3)
      await storage.keys.revoke('key_Acme000000000002', AT + 1, testAudit('key.revoke'))
      assert.deepEqual(await storage.customers.get(acme.id), stored(acme, 2))
      assert.deepEqual(
        (await storage.customers.page({ limit: 10 })).map((c) => [c.id, c.keys]),
        [
          [other.id, 0],
          [acme.id, 2]
        ]
      )
      assert.deepEqual(await storage.customers.byCounterIds([acme.counterId]), [stored(acme, 2)])
      assert.deepEqual(
        (await storage.keys.page({ customerId: acme.id, now: AT, limit: 10 })).map((k) => k.id),
        ['key_Acme000000000003', 'key_Acme000000000002', 'key_Acme000000000001']
      )

      await assert.rejects(createKeyFor(storage, 'key_Nobody0000000001', customer('cus_Nobody0000000000')), FOREIGN_KEY_FAILED)
      assert.equal(await storage.keys.get('key_Nobody0000000001'), undefined)
      assert.deepEqual(await auditOf(storage, 'key_Nobody0000000001'), [])
    })

    test('an external id is unique: create answers false and update external_id_taken, and neither writes anything', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const first = customer('cus_First0000000001', { externalId: 'crm-1' })
      const second = customer('cus_Second000000002', { externalId: 'crm-2' })
      await createCustomer(storage, first)
      await createKeyWithCustomer(storage, 'key_Second000000001', second)

      const taken = customer('cus_Taken0000000003', { externalId: 'crm-1' })
      assert.equal(await storage.customers.create(taken, customerAudit('customer.create')(taken)), false)
      assert.equal(await storage.customers.get(taken.id), undefined)
      assert.deepEqual(await auditOf(storage, taken.id), [])
      // No external id is no one's: any number of customers have none.
      await createCustomer(storage, customer('cus_NoExternal00001'))
      await createCustomer(storage, customer('cus_NoExternal00002'))

      let audited = 0
      const audit = (before: CustomerRecord, after: CustomerRecord) => {
        audited++
        return customerAudit('customer.update', { externalId: { from: before.externalId, to: after.externalId } })(after)
      }
      const everything = { externalId: 'crm-1', name: 'Renamed', plan: 'business', perMinute: 5, perDay: 6 }
      assert.deepEqual(await storage.customers.update(second.id, everything, audit), { outcome: 'external_id_taken' })
      assert.deepEqual(await storage.customers.get(second.id), stored(second, 1), 'no other field changed either')
      assert.deepEqual(await ownColumns(db, second.id), [['key_Second000000001', 'free', null, null]], 'nor its keys')
      assert.equal(audited, 0)
      assert.deepEqual(await actionsOn(storage, second.id), ['customer.create'])

      // Its own external id is not taken; one given up is free again.
      assert.equal((await storage.customers.update(second.id, { externalId: 'crm-2', name: 'Second' }, audit)).outcome, 'updated')
      assert.equal((await storage.customers.update(first.id, { externalId: null }, audit)).outcome, 'updated')
      const moved = await storage.customers.update(second.id, { externalId: 'crm-1' }, audit)
      assert.equal(moved.outcome === 'updated' && moved.after.externalId, 'crm-1')
      assert.equal(audited, 3)
      assert.deepEqual(await storage.customers.update('cus_Nobody0000000000', { name: 'x' }, audit), { outcome: 'missing' })
      assert.equal(audited, 3, 'no audit for a customer that is not there')
    })

    test('update: the plan and numbers are copied onto every key of the customer, which the key store answers', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const acme = customer('cus_AcmeCorp00000001', { name: 'ACME' })
      const other = customer('cus_Other0000000002', { plan: 'pro', perMinute: 9, perDay: 99 })
      await createKeyWithCustomer(storage, 'key_Acme000000000001', acme)
      await createKeyFor(storage, 'key_Acme000000000002', acme)
      await storage.keys.revoke('key_Acme000000000002', AT + 1, testAudit('key.revoke'))
      await createKeyWithCustomer(storage, 'key_Other00000000001', other)

      const seen: Array<[CustomerRecord, CustomerRecord]> = []
      const audit = (before: CustomerRecord, after: CustomerRecord) => {
        seen.push([recordOf(before), recordOf(after)])
        return customerAudit('customer.update', { plan: { from: before.plan, to: after.plan } })(after)
      }
      const enterprise = { ...acme, plan: 'enterprise', perMinute: 7, perDay: 70 }
      const updated = await storage.customers.update(acme.id, { plan: 'enterprise', perMinute: 7, perDay: 70 }, audit)
      assert.equal(updated.outcome, 'updated')
      assert.deepEqual(seen, [[acme, enterprise]])
      assert.deepEqual(await storage.customers.get(acme.id), stored(enterprise, 1))
      assert.deepEqual(
        await ownColumns(db, acme.id),
        [
          ['key_Acme000000000001', 'enterprise', 7, 70],
          ['key_Acme000000000002', 'enterprise', 7, 70]
        ],
        'every key of the customer, the revoked one too'
      )
      assert.deepEqual(await ownColumns(db, other.id), [['key_Other00000000001', 'pro', 9, 99]], 'another customer’s keys stay')
      assert.deepEqual(await servedAs(storage, 'key_Acme000000000001'), {
        customerId: acme.id,
        counterId: acme.id,
        plan: 'enterprise',
        perMinute: 7,
        perDay: 70
      })

      // Back to the plan's numbers: null on the keys too. A new name is the customer's alone.
      await storage.customers.update(acme.id, { plan: 'pro', perMinute: null, perDay: null, name: 'ACME Inc' }, audit)
      assert.deepEqual(await ownColumns(db, acme.id), [
        ['key_Acme000000000001', 'pro', null, null],
        ['key_Acme000000000002', 'pro', null, null]
      ])
      assert.deepEqual(await storage.customers.get(acme.id), stored({ ...acme, name: 'ACME Inc', plan: 'pro' }, 1))
      assert.equal((await storage.keys.get('key_Acme000000000001'))?.name, null)
      assert.deepEqual(await actionsOn(storage, acme.id), ['customer.update', 'customer.update', 'customer.create'])
    })

    test('a monthly quota of its own: stored with the numbers, changed, removed; every key of the customer carries it', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const quota = 1_000_000_000_000
      const acme = customer('cus_AcmeCorp00000001', { plan: 'pro', perMinute: 5, perDay: 50, perMonth: quota })
      await createKeyWithCustomer(storage, 'key_Acme000000000001', acme)
      await createKeyFor(storage, 'key_Acme000000000002', acme)
      assert.deepEqual(await storage.customers.get(acme.id), stored(acme, 2))
      assert.deepEqual((await storage.customers.page({ limit: 10 }))[0], stored(acme, 2))
      assert.deepEqual(await storage.customers.byCounterIds([acme.counterId]), [stored(acme, 2)])
      const carried = async () =>
        Promise.all(['key_Acme000000000001', 'key_Acme000000000002'].map(async (id) => (await storage.keys.get(id))?.perMonth))
      assert.deepEqual(await carried(), [quota, quota])
      assert.equal((await storage.keys.findByHash(hashOf('key_Acme000000000002')))?.perMonth, quota, 'the key the API finds by its secret')
      assert.equal((await storage.keys.page({ customerId: acme.id, now: AT, limit: 1 }))[0]?.perMonth, quota)

      const seen: Array<[number | null, number | null]> = []
      const audit = (before: CustomerRecord, after: CustomerRecord) => {
        seen.push([before.perMonth, after.perMonth])
        return customerAudit('customer.update', { perMonth: { from: before.perMonth, to: after.perMonth } })(after)
      }
      assert.equal((await storage.customers.update(acme.id, { perMonth: 5000 }, audit)).outcome, 'updated')
      assert.deepEqual(await carried(), [5000, 5000])
      assert.equal((await storage.customers.update(acme.id, { name: 'ACME' }, audit)).outcome, 'updated')
      assert.equal((await storage.customers.get(acme.id))?.perMonth, 5000, 'a change of name keeps it')
      // The key store sets the customer's, as it does its numbers.
      await storage.keys.update('key_Acme000000000002', { perMonth: 7000 }, keyAudit)
      assert.deepEqual(await carried(), [7000, 7000])
      assert.equal((await storage.customers.update(acme.id, { perMinute: null, perDay: null, perMonth: null }, audit)).outcome, 'updated')
      assert.deepEqual(await carried(), [null, null])
      assert.deepEqual(
        await storage.customers.get(acme.id),
        stored({ ...acme, name: 'ACME', perMinute: null, perDay: null, perMonth: null }, 2)
      )
      assert.deepEqual(seen, [
        [quota, 5000],
        [5000, 5000],
        [7000, null]
      ])
      // The keys' own columns are for the previous release, which knows no month: they hold no quota.
      assert.deepEqual(await ownColumns(db, acme.id), [
        ['key_Acme000000000001', 'pro', null, null],
        ['key_Acme000000000002', 'pro', null, null]
      ])

      const zero = customer('cus_Zero000000000001', { perMinute: 1, perDay: 1, perMonth: 0 })
      await assert.rejects(storage.customers.create(zero, customerAudit('customer.create')(zero)), CHECK_FAILED)
      await assert.rejects(storage.customers.update(acme.id, { perMonth: 0 }, audit), CHECK_FAILED)
      assert.equal(await storage.customers.get(zero.id), undefined)
      assert.equal((await storage.customers.get(acme.id))?.perMonth, null)
    })

    test('KeyStore.update: a key’s plan and numbers are its customer’s, so every key of the customer gets them', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const acme = customer('cus_AcmeCorp00000001')
      await createKeyWithCustomer(storage, 'key_Acme000000000001', acme)
      await createKeyFor(storage, 'key_Acme000000000002', acme)

      // Both entries the callback returns are written: the key's, and its customer's.
      const audit = (_before: ApiKeyRecord, after: ApiKeyRecord): AuditEntry[] => [
        testAudit('key.update')(after),
        customerAudit('customer.update')({ id: after.customerId!, name: acme.name })
      ]
      const after = await storage.keys.update('key_Acme000000000001', { plan: 'business', perMinute: 3 }, audit)
      const business = { customerId: acme.id, counterId: acme.id, plan: 'business', perMinute: 3, perDay: null }
      assert.deepEqual(after && (await servedAs(storage, after.id)), business)
      assert.deepEqual(await servedAs(storage, 'key_Acme000000000002'), business)
      assert.deepEqual(await storage.customers.get(acme.id), stored({ ...acme, plan: 'business', perMinute: 3 }, 2))
      assert.deepEqual(await ownColumns(db, acme.id), [
        ['key_Acme000000000001', 'business', 3, null],
        ['key_Acme000000000002', 'business', 3, null]
      ])
      assert.deepEqual(await actionsOn(storage, 'key_Acme000000000001'), ['key.update', 'key.create'])
      assert.deepEqual(await actionsOn(storage, acme.id), ['customer.update', 'customer.create'])

      // A change of the key's own leaves the customer as it is.
      await storage.keys.update('key_Acme000000000001', { name: 'ci' }, audit)
      assert.deepEqual(await storage.customers.get(acme.id), stored({ ...acme, plan: 'business', perMinute: 3 }, 2))
    })

    test('adoptKeys: each key the previous release made gets a customer of its own, once', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const ours = customer('cus_Ours000000000001')
      await createKeyWithCustomer(storage, 'key_Ours000000000001', ours)
      await insertPreviousReleaseKey(db, {
        id: 'key_Shop000000000001',
        name: 'shop',
        plan: 'pro',
        perMinute: 7,
        perDay: null,
        createdAt: AT
      })
      const unnamed = { name: null, plan: 'enterprise', perMinute: 5, perDay: 9, createdAt: AT + 1, revokedAt: AT + 2 }
      await insertPreviousReleaseKey(db, { id: 'key_NoName0000000001', ...unnamed })
      await insertPreviousReleaseKey(db, {
        id: 'key_Empty00000000001',
        name: '',
        plan: 'free',
        perMinute: null,
        perDay: null,
        createdAt: AT + 3
      })

      // Until adopted, a key is served as its own customer: its plan, numbers and counters.
      const shop = { counterId: 'key_Shop000000000001', plan: 'pro', perMinute: 7, perDay: null }
      assert.deepEqual(await servedAs(storage, 'key_Shop000000000001'), { customerId: null, ...shop })
      assert.deepEqual(
        (await storage.customers.page({ limit: 10 })).map((c) => c.id),
        [ours.id]
      )

      assert.equal(await storage.customers.adoptKeys(), 3)
      assert.deepEqual(await storage.customers.page({ limit: 10 }), [
        stored(customer('cus_Empty00000000001', { name: 'key_Empty00000000001', counterId: 'key_Empty00000000001', createdAt: AT + 3 }), 1),
        stored(
          customer('cus_NoName0000000001', {
            name: 'key_NoName0000000001',
            plan: 'enterprise',
            perMinute: 5,
            perDay: 9,
            counterId: 'key_NoName0000000001',
            createdAt: AT + 1
          }),
          0
        ),
        stored(customer('cus_Shop000000000001', { name: 'shop', plan: 'pro', perMinute: 7, counterId: 'key_Shop000000000001' }), 1),
        stored(ours, 1)
      ])
      assert.deepEqual(
        (await db.query('SELECT id, customer_id FROM api_keys ORDER BY id')).map((row) => [row.id, row.customer_id]),
        [
          ['key_Empty00000000001', 'cus_Empty00000000001'],
          ['key_NoName0000000001', 'cus_NoName0000000001'],
          ['key_Ours000000000001', ours.id],
          ['key_Shop000000000001', 'cus_Shop000000000001']
        ]
      )
      assert.deepEqual(
        await servedAs(storage, 'key_Shop000000000001'),
        { customerId: 'cus_Shop000000000001', ...shop },
        'the same counters'
      )

      assert.equal(await storage.customers.adoptKeys(), 0, 'none is left')
      assert.equal((await storage.customers.page({ limit: 10 })).length, 4)

      // Starting an instance (migrate) adopts too.
      await insertPreviousReleaseKey(db, {
        id: 'key_Later00000000001',
        name: 'later',
        plan: 'free',
        perMinute: null,
        perDay: null,
        createdAt: AT + 4
      })
      assert.equal(await storage.migrate(), 0)
      assert.equal((await storage.keys.get('key_Later00000000001'))?.customerId, 'cus_Later00000000001')
      // An adopted customer is like any other: a change reaches its key's own columns, for the previous release.
      const audit = customerAudit('customer.update')
      assert.equal(
        (await storage.customers.update('cus_Shop000000000001', { plan: 'business', perMinute: null }, audit)).outcome,
        'updated'
      )
      assert.deepEqual(await ownColumns(db, 'cus_Shop000000000001'), [['key_Shop000000000001', 'business', null, null]])
    })

    test('byCounterIds: the customers whose counters these are, unknown ones left out', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const acme = customer('cus_AcmeCorp00000001')
      const globex = customer('cus_Globex0000000002')
      await createCustomer(storage, acme)
      await createCustomer(storage, globex)
      await insertPreviousReleaseKey(db, {
        id: 'key_Shop000000000001',
        name: 'shop',
        plan: 'pro',
        perMinute: null,
        perDay: null,
        createdAt: AT
      })
      await storage.customers.adoptKeys()

      const found = await storage.customers.byCounterIds([globex.id, 'key_Shop000000000001', 'key_Nobody0000000001', acme.id])
      assert.deepEqual(found.map((c) => `${c.id} ${c.counterId}`).sort(), [
        `${acme.id} ${acme.id}`,
        `${globex.id} ${globex.id}`,
        'cus_Shop000000000001 key_Shop000000000001'
      ])
      assert.deepEqual(await storage.customers.byCounterIds(['cus_Shop000000000001']), [], 'an adopted customer counts under its key’s id')
      assert.deepEqual(await storage.customers.byCounterIds(['key_Nobody0000000001']), [])
      assert.deepEqual(await storage.customers.byCounterIds([]), [])
    })

    test('every change is one transaction with its audit rows: an audit row the database refuses leaves nothing written', async (t) => {
      const { storage, env } = await openStore(t, backend)
      const db = await rawDatabase(t, env)
      const acme = customer('cus_AcmeCorp00000001')
      const first = key('key_Acme000000000001', acme)

      await assert.rejects(storage.customers.create(acme, refusedAudit()), CHECK_FAILED)
      assert.equal(await storage.customers.get(acme.id), undefined)
      const created = testAudit('key.create')(first)
      await assert.rejects(storage.keys.create(first, hashOf(first.id), created, { record: acme, audit: refusedAudit() }), CHECK_FAILED)
      const customerCreated = { record: acme, audit: customerAudit('customer.create')(acme) }
      await assert.rejects(storage.keys.create(first, hashOf(first.id), refusedAudit(), customerCreated), CHECK_FAILED)
      assert.equal(await storage.customers.get(acme.id), undefined, 'nor the customer made with the key')
      assert.equal(await storage.keys.get(first.id), undefined)

      await createKeyWithCustomer(storage, first.id, acme)
      const changes = { name: 'Renamed', externalId: 'crm-1', plan: 'business', perMinute: 1, perDay: 2 }
      await assert.rejects(storage.customers.update(acme.id, changes, refusedAudit), CHECK_FAILED)
      const keyAudit = (_before: ApiKeyRecord, after: ApiKeyRecord) => [testAudit('key.update')(after), refusedAudit()]
      await assert.rejects(storage.keys.update(first.id, { plan: 'business', perMinute: 1, perDay: 2, name: 'ci' }, keyAudit), CHECK_FAILED)
      assert.deepEqual(await storage.customers.get(acme.id), stored(acme, 1))
      assert.deepEqual(await ownColumns(db, acme.id), [[first.id, 'free', null, null]])
      assert.equal((await storage.keys.get(first.id))?.name, null)

      assert.deepEqual(await actionsOn(storage, acme.id), ['customer.create'])
      assert.deepEqual(await actionsOn(storage, first.id), ['key.create'])
      assert.deepEqual(await actionsOn(storage, 'x'), [])
    })
  })
}

describe('CustomerStore on PostgreSQL, instances at once', { skip: await backendSkip(postgresBackend) }, () => {
  test('adoptKeys run by several instances at once makes each key’s customer once', async (t) => {
    const { storage, env } = await openStore(t, postgresBackend)
    const others = [await openStorage(t, env), await openStorage(t, env)]
    const db = await rawDatabase(t, env)
    const ids = Array.from({ length: 30 }, (_, i) => `key_Prev${String(i).padStart(12, '0')}`)
    for (const id of ids) await insertPreviousReleaseKey(db, { id, name: null, plan: 'free', perMinute: null, perDay: null, createdAt: AT })
    const made = await Promise.all([storage, ...others].map((s) => s.customers.adoptKeys()))
    assert.equal(
      made.reduce((a, b) => a + b),
      ids.length
    )
    assert.equal((await storage.customers.page({ limit: 100 })).length, ids.length)
    assert.deepEqual(await db.query('SELECT id FROM api_keys WHERE customer_id IS NULL'), [])
  })

  test('a key the previous release inserts while another instance’s adoption holds this one back waits for the next adoption', async (t) => {
    const { storage, env } = await openStore(t, postgresBackend)
    const db = await rawDatabase(t, env)
    const previous = { name: null, plan: 'free', perMinute: null, perDay: null, createdAt: AT }
    await insertPreviousReleaseKey(db, { id: 'key_First00000000001', ...previous })
    // Another instance adopting the same key, not committed yet: this adoption's INSERT waits on its row.
    const other = new pg.Client({ connectionString: env.DATABASE_URL })
    await other.connect()
    defer(t, () => other.end())
    await other.query('BEGIN')
    await other.query(ADOPT_KEYS[0])
    const adopting = storage.customers.adoptKeys()
    const application = new URL(env.DATABASE_URL!).searchParams.get('application_name')
    await until(
      async () =>
        (await adminQuery("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [application]))
          .length > 0,
      { timeoutMs: 5000, what: 'the adoption to wait for the other instance’s' }
    )
    await other.query(ADOPT_KEYS[1])
    // Meanwhile the previous release makes a key: the waiting INSERT's snapshot does not have it, its UPDATE's does.
    await insertPreviousReleaseKey(db, { id: 'key_Second0000000001', ...previous })
    await other.query('COMMIT')
    assert.equal(await adopting, 0)
    assert.equal(await storage.customers.adoptKeys(), 1, 'the next adoption makes its customer')
    assert.equal((await storage.keys.get('key_Second0000000001'))?.customerId, 'cus_Second0000000001')
  })
})

describe('SqliteStorage opened on its own', () => {
  test('finds customers by name before its key store was ever used', async (t) => {
    const storage = new SqliteStorage(join(tempDir(t), 'store.db'), new ManualClock(AT))
    defer(t, () => storage.close())
    await storage.migrate()
    assert.deepEqual(await storage.customers.page({ search: 'acme', limit: 10 }), [])
  })
})
