import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import pg from 'pg'
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations/list.ts'
import type { Storage } from '../../src/storage/types.ts'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { backendSkip, openStorage, postgresBackend } from '../helpers/backends.ts'
import { nextLink } from '../helpers/links.ts'
import { adminQuery, createSchema, type TestSchema } from '../helpers/postgres.ts'
import { defer } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'
import { testAudit } from '../helpers/audit.ts'

const skip = await backendSkip(postgresBackend)

/** A schema of the test's own and `count` storages on it, none migrated; all removed after the test. */
async function storagesOnOneSchema(t: TestContext, count: number): Promise<{ schema: TestSchema; storages: Storage[] }> {
  const schema = await createSchema()
  defer(t, () => schema.drop())
  const storages: Storage[] = []
  for (let i = 0; i < count; i++) storages.push(await openStorage(t, { DATABASE_URL: schema.url }))
  return { schema, storages }
}

/** Runs SQL inside the app's own schema. */
function sql<R extends pg.QueryResultRow>(app: TestApp, text: string, values: unknown[] = []): Promise<R[]> {
  const { database } = app.config
  assert.equal(database.kind, 'postgres')
  return adminQuery<R>(text, values, database.url)
}

async function createRaw(app: TestApp, body: string): Promise<{ text: string; id: string }> {
  const response = await postJson(app, '/v1/pets', body)
  const text = await response.text()
  assert.equal(response.status, 201, text)
  return { text, id: /"id":(\d+)/.exec(text)![1]! }
}

describe('PostgreSQL storage', { skip }, () => {
  test('int64 ids and categoryIds beyond 2^53, up to 2^63-1, round-trip exactly through HTTP and the table', async (t) => {
    const app = await startApp(t, { backend: postgresBackend })
    await sql(app, 'ALTER TABLE pets ALTER COLUMN id RESTART WITH 9007199254740992')
    const a = await createRaw(app, '{"name":"a","categoryId":9007199254740993}')
    const b = await createRaw(app, '{"name":"b","categoryId":9223372036854775807}')
    assert.deepEqual([a.id, b.id], ['9007199254740992', '9007199254740993'])
    assert.match(b.text, /"categoryId":9223372036854775807[,}]/)
    assert.match(
      await (await app.fetch('/v1/pets/9007199254740993')).text(),
      /^\{"id":9007199254740993,"name":"b","categoryId":9223372036854775807,/
    )

    await sql(app, 'ALTER TABLE pets ALTER COLUMN id RESTART WITH 9223372036854775806')
    const c = await createRaw(app, '{"name":"c","categoryId":1,"status":"sold"}')
    const d = await createRaw(app, '{"name":"d","categoryId":9223372036854775807,"status":"sold"}')
    assert.deepEqual([c.id, d.id], ['9223372036854775806', '9223372036854775807'])
    assert.match(
      await (await app.fetch('/v1/pets/9223372036854775807')).text(),
      /"id":9223372036854775807,"name":"d","categoryId":9223372036854775807,"status":"sold"/
    )

    // Page by one across every extreme; the cursor carries the exact last id.
    const seen: string[] = []
    let path: string | undefined = '/v1/pets?limit=1'
    while (path !== undefined) {
      const response: Response = await app.fetch(path)
      seen.push(...[...(await response.text()).matchAll(/"id":(\d+)/g)].map((m) => m[1]!))
      path = nextLink(response)?.slice(app.origin.length)
    }
    assert.deepEqual(seen, [a.id, b.id, c.id, d.id])
    assert.deepEqual(await sql(app, 'SELECT id::text, category_id::text FROM pets ORDER BY id'), [
      { id: a.id, category_id: '9007199254740993' },
      { id: b.id, category_id: '9223372036854775807' },
      { id: c.id, category_id: '1' },
      { id: d.id, category_id: '9223372036854775807' }
    ])

    // The id space is exhausted: the request fails cleanly and stores nothing.
    await assertError(await postJson(app, '/v1/pets', { name: 'e', categoryId: 1 }), 'internal_error')
    assert.equal((await sql(app, 'SELECT id FROM pets')).length, 4)
  })

  test('a process-wide int8 parser installed by someone else does not round our int64s', async (t) => {
    const app = await startApp(t, { backend: postgresBackend })
    const { id } = await createRaw(app, '{"name":"big","categoryId":9007199254740993}')
    const original = pg.types.getTypeParser(20, 'text') as (text: string) => unknown
    pg.types.setTypeParser(20, (text: string) => Number.parseInt(text, 10))
    t.after(() => pg.types.setTypeParser(20, original))
    const [pet] = await app.storage.pets.page({ status: undefined, afterId: undefined, limit: 1 })
    assert.equal(pet?.categoryId, 9007199254740993n)
    assert.match(await (await app.fetch(`/v1/pets/${id}`)).text(), /"categoryId":9007199254740993[,}]/)
  })

  test('several storages migrating one schema at once apply each migration exactly once', async (t) => {
    const {
      schema,
      storages: [a, b, c]
    } = await storagesOnOneSchema(t, 3)
    const applied = await Promise.all([a!.migrate(), b!.migrate(), c!.migrate()])
    assert.deepEqual(applied.sort(), [0, 0, POSTGRES_MIGRATIONS.length])
    assert.equal(await a!.migrate(), 0)
    const versions = await adminQuery<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version', [], schema.url)
    assert.deepEqual(
      versions.map((row) => row.version),
      POSTGRES_MIGRATIONS.map((m) => m.version)
    )
    assert.deepEqual(await c!.pets.page({ status: undefined, afterId: undefined, limit: 1 }), [])
  })

  test('pets created concurrently from many connections never appear behind a reader that pages on', async (t) => {
    const {
      storages: [writerA, writerB, reader]
    } = await storagesOnOneSchema(t, 3)
    await writerA!.migrate()
    const created: bigint[] = []
    const seen: bigint[] = []
    let writing = true
    const tail = (async () => {
      let after: bigint | undefined
      for (;;) {
        const done = !writing
        const page = await reader!.pets.page({ status: undefined, afterId: after, limit: 100 })
        for (const pet of page) seen.push(BigInt(pet.id))
        if (page.length > 0) after = BigInt(page.at(-1)!.id)
        if (done && page.length === 0) return
      }
    })()
    // Ten connections each side, far more than the work in flight: commits race if anything lets them.
    await Promise.all(
      Array.from({ length: 20 }, async (_, worker) => {
        const store = worker % 2 === 0 ? writerA! : writerB!
        for (let i = 0; i < 25; i++)
          created.push(BigInt((await store.pets.create({ name: `w${worker}-${i}`, categoryId: 1, status: 'available' })).id))
      })
    )
    writing = false
    await tail
    created.sort((x, y) => (x < y ? -1 : 1))
    assert.equal(seen.length, 500)
    assert.deepEqual(seen, created, 'the tail reader saw every pet, in ascending id order, each once')
  })

  test('creates that arrive while a batch commits share the next transaction: one lock, one WAL flush', async (t) => {
    const {
      schema,
      storages: [storage]
    } = await storagesOnOneSchema(t, 1)
    await storage!.migrate()
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => storage!.pets.create({ name: `p${i}`, categoryId: 1, status: 'sold' }))
    )
    // Rows written by one transaction carry its id in xmin: the first create commits alone, the
    // other 19 arrive while it does and go together.
    const [row] = await adminQuery<{ transactions: number; pets: number }>(
      'SELECT count(DISTINCT xmin::text)::int AS transactions, count(*)::int AS pets FROM pets WHERE id = ANY($1::int8[])',
      [created.map((pet) => String(pet.id))],
      schema.url
    )
    assert.deepEqual(row, { transactions: 2, pets: 20 })
  })

  test('gets asked together, for pets that exist, that do not and the same one twice, each get their own answer', async (t) => {
    const {
      storages: [storage]
    } = await storagesOnOneSchema(t, 1)
    await storage!.migrate()
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, i) => storage!.pets.create({ name: `g${i}`, categoryId: i + 1, status: 'pending' }))
    )
    const ids = [...created.map((pet) => pet.id), created[3]!.id, 999_999, created[0]!.id]
    const found = await Promise.all(ids.map((id) => Promise.resolve(storage!.pets.get(id))))
    assert.deepEqual(found, [...created, created[3], undefined, created[0]])
  })

  test("connections once opened are kept through a quiet spell longer than pg-pool's idle timeout (10 s)", async (t) => {
    const {
      schema,
      storages: [storage]
    } = await storagesOnOneSchema(t, 1)
    await storage!.migrate()
    const backends = async () =>
      (await adminQuery<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid', [schema.name])).map(
        (row) => row.pid
      )
    const read = () => Promise.resolve(storage!.pets.page({ status: undefined, afterId: undefined, limit: 1 }))
    // From here on, every backend of the schema is one of the pool's.
    await until(async () => (await backends()).length === 0, { timeoutMs: 5000, what: "the migration's connection to close" })

    // pg-pool arms an idle timer (setTimeout) for each connection released while the pool is above
    // its `min`. Mocked from before the reads, those timers are on the mock clock: 11 s pass at once.
    t.mock.timers.enable({ apis: ['setTimeout'] })
    // Reads asked together each take a connection of the pool.
    await Promise.all(Array.from({ length: 4 }, read))
    const opened = await backends()
    assert.ok(opened.length >= 2, `the reads opened ${opened.length} connection(s)`)
    t.mock.timers.tick(11_000)
    t.mock.timers.reset()

    // A pool that closed them would open a new connection (a new backend) for this read.
    await read()
    assert.deepEqual(await backends(), opened, 'the same backends are there: no connection was closed for being idle')
  })

  test('names are stored as sent, U+0000 included', async (t) => {
    const app = await startApp(t, { backend: postgresBackend })
    const name = 'nul \u0000 and 😀 and ʕ•ᴥ•ʔ'
    const { id } = await createRaw(app, JSON.stringify({ name, categoryId: 1 }))
    assert.equal(((await (await app.fetch(`/v1/pets/${id}`)).json()) as { name: string }).name, name)
  })

  test('key times keep their milliseconds; revocation keeps the first time', async (t) => {
    const {
      storages: [storage]
    } = await storagesOnOneSchema(t, 1)
    await storage!.migrate()
    const record = {
      id: 'key_0123456789abcdef',
      prefix: 'as_live_abcd',
      name: null,
      customerId: null,
      counterId: 'key_0123456789abcdef',
      plan: 'enterprise' as const,
      perMinute: 1_000_000,
      perDay: 9_007_199_254,
      // No customer: nothing to read a monthly quota from.
      perMonth: null,
      createdAt: 1781524810123,
      expiresAt: 4102444800999,
      revokedAt: null,
      previousSecretExpiresAt: null,
      scopes: ['pets:read'] as const
    }
    await storage!.keys.create(record, 'f'.repeat(64), testAudit('key.create')(record))
    assert.deepEqual(await storage!.keys.findByHash('f'.repeat(64)), { ...record, secretStopsAt: null })
    const rotated = await storage!.keys.rotate(
      record.id,
      {
        secretHash: 'e'.repeat(64),
        prefix: 'as_live_efgh',
        previousExpiresAt: 1781524812345
      },
      testAudit('key.rotate')
    )
    assert.deepEqual(rotated, { ...record, prefix: 'as_live_efgh', previousSecretExpiresAt: 1781524812345 })
    assert.deepEqual(await storage!.keys.findByHash('f'.repeat(64)), { ...rotated, secretStopsAt: 1781524812345 })
    assert.deepEqual(await storage!.keys.findByHash('e'.repeat(64)), { ...rotated, secretStopsAt: null })
    assert.equal((await storage!.keys.revoke(record.id, 1781524811001, testAudit('key.revoke')))?.revokedAt, 1781524811001)
    assert.equal(await storage!.keys.revoke(record.id, 1781524899999, testAudit('key.revoke')), undefined, 'revoked already')
    assert.equal((await storage!.keys.get(record.id))?.revokedAt, 1781524811001)
    assert.equal(await storage!.keys.revoke('key_nope', 1, testAudit('key.revoke')), undefined)
    await assert.rejects(
      storage!.keys.create({ ...record, id: 'key_other' }, 'e'.repeat(64), testAudit('key.create')(record)),
      /duplicate key/
    )
    // The create, the rotation and the first revocation each left one audit entry; the refusals none.
    assert.deepEqual(
      (await storage!.audit.page({ limit: 10 })).map((entry) => entry.action),
      ['key.revoke', 'key.rotate', 'key.create']
    )
  })
})
