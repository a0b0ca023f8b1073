import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AnimalStoreError, type DeprecationNotice, type Pet } from '../src/index.ts'
import { DatabaseSync } from 'node:sqlite'
import { clientOf, startApp, unlimitedKey } from './helpers/service.ts'

describe('client against the real service', () => {
  test('createPet, listPets, getPet: typed values, defaults, ascending pages', async (t) => {
    const app = await startApp(t)
    const key = await unlimitedKey(app)
    const { client, sent } = clientOf(app, key)
    const rex = await client.createPet({ name: 'Rex', categoryId: 1 })
    const tom = await client.createPet({ name: 'Tom', categoryId: 2, status: 'sold' })
    assert.deepEqual(rex, { id: rex.id, name: 'Rex', categoryId: 1, status: 'available' })
    assert.equal(typeof rex.id, 'number')
    assert.deepEqual(await client.listPets(), { pets: [rex, tom], nextCursor: null })
    assert.deepEqual(await client.listPets({ status: 'sold' }), { pets: [tom], nextCursor: null })

    const first = await client.listPets({ limit: 1 })
    assert.deepEqual(first.pets, [rex])
    assert.equal(typeof first.nextCursor, 'string')
    assert.deepEqual(await client.listPets({ limit: 1, cursor: first.nextCursor! }), { pets: [tom], nextCursor: null })

    assert.deepEqual(await client.getPet(tom.id), tom)
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.status}`),
      ['POST 201', 'POST 201', 'GET 200', 'GET 200', 'GET 200', 'GET 200', 'GET 200']
    )
    assert.ok(sent.every((r) => r.headers.get('authorization') === `Bearer ${key}` && r.headers.get('accept') === 'application/json'))
  })

  test('createPet sends a fresh Idempotency-Key per call, or the one given', async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    await client.createPet({ name: 'a', categoryId: 1 })
    await client.createPet({ name: 'b', categoryId: 1 })
    await client.createPet({ name: 'c', categoryId: 1 }, { idempotencyKey: 'order-42-line-1' })
    const keys = sent.map((r) => r.headers.get('idempotency-key'))
    assert.match(keys[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.notEqual(keys[0], keys[1])
    assert.equal(keys[2], 'order-42-line-1')
    assert.equal(sent[0]!.headers.get('content-type'), 'application/json')
  })

  test('allPets walks 250 pets in pages of 100 (and of 7), each once, in order', async (t) => {
    const app = await startApp(t)
    const created: Pet[] = []
    for (let i = 0; i < 250; i++)
      created.push(await app.storage.pets.create({ name: `pet ${i}`, categoryId: 1 + (i % 3), status: i % 2 === 0 ? 'available' : 'sold' }))
    const { client, sent } = clientOf(app, await unlimitedKey(app))

    const all: Pet[] = []
    for await (const pet of client.allPets()) all.push(pet)
    assert.deepEqual(all, created)
    assert.equal(sent.length, 3)

    const sold: Pet[] = []
    for await (const pet of client.allPets({ status: 'sold', pageSize: 7 })) sold.push(pet)
    assert.deepEqual(
      sold,
      created.filter((p) => p.status === 'sold')
    )
    assert.equal(sent.length, 3 + Math.ceil(125 / 7))
    assert.ok(sent.slice(3).every((r) => new URL(r.url).searchParams.get('status') === 'sold'))
  })

  test('allPets stops early without fetching more when the loop breaks', async (t) => {
    const app = await startApp(t)
    for (let i = 0; i < 30; i++) await app.storage.pets.create({ name: `pet ${i}`, categoryId: 1, status: 'available' })
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    for await (const pet of client.allPets({ pageSize: 10 })) {
      if (pet.name === 'pet 12') break
    }
    assert.equal(sent.length, 2)
  })

  test('int64: categoryId 2^63-1 and 2^53+1 go and come back exact as bigint; ids past 2^53 too', async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    const max = await client.createPet({ name: 'max', categoryId: 9223372036854775807n })
    assert.equal(max.categoryId, 9223372036854775807n)
    assert.equal(sent[0]!.body, '{"name":"max","categoryId":9223372036854775807}')
    const beyondSafe = await client.createPet({ name: 'beyond', categoryId: 9007199254740993n })
    assert.equal(beyondSafe.categoryId, 9007199254740993n)
    const safe = await client.createPet({ name: 'safe', categoryId: 9007199254740991n })
    assert.equal(safe.categoryId, 9007199254740991, 'a safe value comes back as a number')
    assert.deepEqual(
      (await client.listPets()).pets.map((p) => p.categoryId),
      [9223372036854775807n, 9007199254740993n, 9007199254740991]
    )

    // The service assigns ids past 2^53 once its sequence is there.
    const db = new DatabaseSync(app.backendEnv.DATABASE_URL!.slice('sqlite:'.length), { timeout: 5000 })
    db.prepare("DELETE FROM sqlite_sequence WHERE name = 'pets'").run()
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('pets', ?)").run(9007199254740992n)
    db.close()
    const big = await client.createPet({ name: 'big id', categoryId: 9223372036854775807n })
    assert.equal(big.id, 9007199254740993n)
    const next = await client.createPet({ name: 'bigger id', categoryId: 5 })
    assert.equal(next.id, 9007199254740994n)
    assert.deepEqual(await client.getPet(9007199254740993n), big)
    const page = await client.listPets({ limit: 4 })
    assert.deepEqual(page.pets.map((p) => p.id).slice(-1), [9007199254740993n])
    assert.deepEqual((await client.listPets({ limit: 4, cursor: page.nextCursor! })).pets, [next])
  })

  test('getPet reports the service Deprecation, Sunset and successor; the default warns once', async (t) => {
    const app = await startApp(t)
    const notices: DeprecationNotice[] = []
    const { client } = clientOf(app, await unlimitedKey(app), { onDeprecation: (notice) => notices.push(notice) })
    const pet = await client.createPet({ name: 'Rex', categoryId: 1 })
    await client.getPet(pet.id)
    assert.equal(notices.length, 1)
    assert.equal(notices[0]!.operation, 'getPet')
    assert.equal(notices[0]!.sunset?.toISOString(), '2030-12-05T00:00:00.000Z')
    assert.equal(notices[0]!.deprecatedSince?.toISOString(), '2026-01-01T00:00:00.000Z')
    assert.equal(notices[0]!.successor, `${app.base}/pets`)

    const warnings: unknown[][] = []
    t.mock.method(console, 'warn', (...args: unknown[]) => {
      warnings.push(args)
    })
    const { client: defaults } = clientOf(app, await unlimitedKey(app), { onDeprecation: undefined })
    for (let i = 0; i < 3; i++) await defaults.getPet(pet.id)
    assert.equal(warnings.length, 1)
    assert.match(
      String(warnings[0]![0]),
      /getPet is deprecated and is removed on 2030-12-05; use http:\/\/127\.0\.0\.1:\d+\/v1\/pets instead/
    )
  })

  test('the rate-limit state of the latest response: X-RateLimit-* and both RateLimit windows', async (t) => {
    const app = await startApp(t)
    const { client } = clientOf(app, await app.key({ plan: 'free' }))
    assert.equal(client.lastRateLimit, undefined)
    await client.listPets()
    await client.createPet({ name: 'Rex', categoryId: 1 })
    // 12:00:10 UTC: the minute ends in 50 s, the day in 11 h 59 min 50 s.
    assert.deepEqual(client.lastRateLimit, {
      limit: 60,
      remaining: 58,
      reset: Date.UTC(2026, 5, 15, 12, 1, 0) / 1000,
      windows: [
        { name: 'minute', remaining: 58, resetSeconds: 50, quota: 60, windowSeconds: 60 },
        { name: 'day', remaining: 998, resetSeconds: 43_190, quota: 1000, windowSeconds: 86_400 }
      ]
    })
  })

  test("rateLimit(): the key's own use from GET /rate_limit, consuming nothing", async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await app.key({ plan: 'free', perMinute: 2 }))
    await client.listPets()
    const expected = {
      plan: 'free',
      limits: [
        { window: 'minute', limit: 2, remaining: 1, reset: Date.UTC(2026, 5, 15, 12, 1, 0) / 1000 },
        { window: 'day', limit: 1000, remaining: 999, reset: Date.UTC(2026, 5, 16) / 1000 }
      ],
      bannedUntil: null
    }
    assert.deepEqual(await client.rateLimit(), expected)
    assert.deepEqual(await client.rateLimit(), expected, 'reading it took nothing')
    assert.equal(client.lastRateLimit?.remaining, 1)
    assert.equal(sent.at(-1)!.url, `${app.base}/rate_limit`)
  })
})

describe('usage()', () => {
  test("the customer's requests by outcome from GET /usage, summed over its keys, consuming nothing", async (t) => {
    const app = await startApp(t)
    const first = await app.keyWithId({ plan: 'free', perMinute: 2 })
    const customerId = (await app.storage.keys.get(first.id))!.customerId!
    const second = await app.key({ customerId })
    // No retry of the 429 below: each request is counted once.
    const { client, sent } = clientOf(app, first.key, { maxRetries: 0 })
    await client.listPets()
    await clientOf(app, second).client.listPets()
    await assert.rejects(client.listPets(), { code: 'rate_limited' })
    const range = { from: '2026-06-15T12:00:00Z', to: '2026-06-15T12:02:00Z', granularity: 'minute' } as const
    const expected = [
      { start: '2026-06-15T12:00:00.000Z', allowed: 2, rateLimited: 1, banned: 0, quotaExceeded: 0 },
      { start: '2026-06-15T12:01:00.000Z', allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 }
    ]
    assert.deepEqual(await client.usage(range), expected)
    assert.deepEqual(await client.usage(range), expected, 'reading it is neither counted nor limited')
    assert.equal(sent.at(-1)!.url, `${app.base}/usage?from=2026-06-15T12%3A00%3A00Z&to=2026-06-15T12%3A02%3A00Z&granularity=minute`)
  })
})

describe('typed errors, never retried', () => {
  test('unauthorized, validation_failed, invalid_cursor, not_found: code, status, message, requestId; one request each', async (t) => {
    const app = await startApp(t)
    const { client: stranger, sent: strangerSent } = clientOf(app, 'as_live_0000000000000000000000000000000000000000000')
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    const cases: Array<[() => Promise<unknown>, string, number, RegExp]> = [
      [() => stranger.listPets(), 'unauthorized', 401, /key/i],
      [() => client.createPet({ name: '', categoryId: 1 }), 'validation_failed', 400, /name/],
      [() => client.createPet({ name: 'x', categoryId: 0 }), 'validation_failed', 400, /categoryId/],
      [() => client.listPets({ cursor: 'not-a-cursor' }), 'invalid_cursor', 400, /cursor/],
      [() => client.listPets({ limit: 101 }), 'validation_failed', 400, /limit/],
      [() => client.getPet(424242), 'not_found', 404, /424242/]
    ]
    for (const [call, code, status, message] of cases) {
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof AnimalStoreError, String(error))
        assert.equal(error.name, 'AnimalStoreError')
        assert.equal(error.code, code)
        assert.equal(error.status, status)
        assert.match(error.message, message)
        assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/)
        assert.equal(error.attempts, 1)
        return true
      })
    }
    assert.equal(strangerSent.length, 1)
    assert.equal(sent.length, cases.length - 1)
  })

  test('a read-only key creating a pet: insufficient_scope (403), once, with the rate-limit state', async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await app.key({ plan: 'free', scopes: ['pets:read'] }))
    await assert.rejects(
      () => client.createPet({ name: 'Rex', categoryId: 1 }),
      (error: unknown) => {
        assert.ok(error instanceof AnimalStoreError, String(error))
        assert.equal(error.code, 'insufficient_scope')
        assert.equal(error.status, 403)
        assert.match(error.message, /pets:write/)
        assert.equal(error.attempts, 1)
        return true
      }
    )
    assert.equal(sent.length, 1, 'not retried')
    assert.equal(client.lastRateLimit?.remaining, 59, 'the refused call took quota, and the client saw its headers')
  })

  test('getPet after the sunset: gone (410)', async (t) => {
    const app = await startApp(t, { now: new Date('2030-12-05T00:00:00Z') })
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    await assert.rejects(client.getPet(1), { name: 'AnimalStoreError', code: 'gone', status: 410 })
    assert.equal(sent.length, 1)
  })
})
