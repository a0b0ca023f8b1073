import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { describe, test, type TestContext } from 'node:test'
import { Redis } from 'ioredis'
import { ManualClock } from '../../src/base/clock.ts'
import { SHARED_PAGE_MAX_AGE_MS } from '../../src/compose/pets.ts'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { CachedPages, type PetPages } from '../../src/http/services/page-cache.ts'
import { RedisChangeMarker } from '../../src/storage/redis/change-marker.ts'
import type { PetsVersionToken } from '../../src/storage/pets/types.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { backendSkip, postgresBackend, sqliteBackend } from '../helpers/backends.ts'
import { nextLink } from '../helpers/links.ts'
import { adminQuery } from '../helpers/postgres.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'

async function names(app: TestApp, path: string): Promise<string[]> {
  const response = await app.fetch(path)
  assert.equal(response.status, 200)
  return ((await response.json()) as Array<{ name: string }>).map((pet) => pet.name)
}

async function create(app: TestApp, name: string): Promise<void> {
  assert.equal((await postJson(app, '/v1/pets', { name, categoryId: 1 })).status, 201)
}

/** Inserts a pet through a connection of its own, as another program on the file would. */
function insertFromOutside(app: TestApp, name: string): void {
  const db = new DatabaseSync(app.backendEnv.DATABASE_URL!.slice('sqlite:'.length), { timeout: 5000 })
  try {
    db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')").run(name)
  } finally {
    db.close()
  }
}

describe('rendered list pages (embedded store)', () => {
  test('a page served again is the same bytes and link, with rate-limit headers of its own request', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend })
    for (const name of ['a', 'b', 'c']) await create(app, name)
    const first = await app.fetch('/v1/pets?limit=2')
    const second = await app.fetch('/v1/pets?limit=2')
    assert.equal(await second.text(), await first.text())
    assert.equal(second.headers.get('link'), first.headers.get('link'))
    assert.ok(nextLink(first) !== undefined, 'the first page links to the next')
    assert.equal(Number(second.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1)
    assert.notEqual(second.headers.get('x-request-id'), first.headers.get('x-request-id'))
  })

  test('a create shows on the next list at once, on the first page and on a followed cursor', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend })
    for (const name of ['a', 'b', 'c']) await create(app, name)
    const next = new URL(nextLink(await app.fetch('/v1/pets?limit=2'))!)
    const cursorPage = `${next.pathname}${next.search}`
    assert.deepEqual(await names(app, '/v1/pets?limit=5'), ['a', 'b', 'c'])
    assert.deepEqual(await names(app, cursorPage), ['c'])
    await create(app, 'd')
    assert.deepEqual(await names(app, '/v1/pets?limit=5'), ['a', 'b', 'c', 'd'])
    assert.deepEqual(await names(app, cursorPage), ['c', 'd'])
  })

  test('a pet written by another program on the file shows within 250 ms', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend })
    await create(app, 'a')
    assert.deepEqual(await names(app, '/v1/pets'), ['a'])
    insertFromOutside(app, 'outside')
    assert.deepEqual(await names(app, '/v1/pets'), ['a'], 'the file is not asked again on every request')
    app.clock.advance(250)
    assert.deepEqual(await names(app, '/v1/pets'), ['a', 'outside'])
  })

  test('PAGE_CACHE_ENTRIES=0 keeps no page: an outside write shows on the very next request', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, env: { PAGE_CACHE_ENTRIES: '0' } })
    await create(app, 'a')
    assert.deepEqual(await names(app, '/v1/pets'), ['a'])
    insertFromOutside(app, 'outside')
    assert.deepEqual(await names(app, '/v1/pets'), ['a', 'outside'])
  })
})

describe('rendered list pages (PostgreSQL + Redis, two instances)', { skip: await backendSkip(postgresBackend) }, () => {
  /** Two instances on one schema and one Redis prefix, and a way to write pets behind their backs. */
  async function twoInstances(t: TestContext) {
    const a = await startApp(t, { backend: postgresBackend })
    const b = await startApp(t, { backend: postgresBackend, shareStorageWith: a })
    const outside = (name: string) =>
      adminQuery(
        "INSERT INTO pets (name, category_id, status) VALUES (convert_to($1, 'UTF8'), 1, 'available')",
        [name],
        a.backendEnv.DATABASE_URL
      )
    return { a, b, outside }
  }

  test('a create on either instance shows at once on both, whose pages are otherwise reused', async (t) => {
    const { a, b, outside } = await twoInstances(t)
    await create(a, 'a')
    for (const app of [a, b]) assert.deepEqual(await names(app, '/v1/pets'), ['a'])
    await outside('outside')
    for (const app of [a, b]) {
      assert.deepEqual(await names(app, '/v1/pets'), ['a'], 'the page each read is reused: a write by hand does not change the marker')
    }
    const seen = ['a', 'outside']
    for (const [writer, name] of [[a, 'b'] as const, [b, 'c'] as const]) {
      await create(writer, name)
      seen.push(name)
      for (const app of [a, b]) {
        assert.deepEqual(await names(app, '/v1/pets'), seen, `a create through ${writer.origin} is seen by ${app.origin} at once`)
      }
    }
  })

  test(`a page is reused for at most ${SHARED_PAGE_MAX_AGE_MS} ms, which bounds what the marker cannot see`, async (t) => {
    const { a, outside } = await twoInstances(t)
    await create(a, 'a')
    assert.deepEqual(await names(a, '/v1/pets'), ['a'])
    await outside('outside')
    a.clock.advance(SHARED_PAGE_MAX_AGE_MS - 1)
    assert.deepEqual(await names(a, '/v1/pets'), ['a'], 'reused until it is that old')
    a.clock.advance(1)
    assert.deepEqual(await names(a, '/v1/pets'), ['a', 'outside'])
  })

  test("a marker lost with Redis's data is replaced, and no page from before is served", async (t) => {
    const { a, b, outside } = await twoInstances(t)
    await create(a, 'a')
    assert.deepEqual(await names(b, '/v1/pets'), ['a'])
    await outside('outside')
    const redis = new Redis(TEST_REDIS_URL)
    try {
      assert.equal(await redis.del(`${a.backendEnv.REDIS_KEY_PREFIX}pets:changed`), 1)
    } finally {
      redis.disconnect()
    }
    assert.deepEqual(await names(b, '/v1/pets'), ['a', 'outside'])
  })

  test('PAGE_CACHE_ENTRIES=0 keeps no page here either', async (t) => {
    const a = await startApp(t, { backend: postgresBackend, env: { PAGE_CACHE_ENTRIES: '0' } })
    await create(a, 'a')
    assert.deepEqual(await names(a, '/v1/pets'), ['a'])
    await adminQuery("INSERT INTO pets (name, category_id, status) VALUES ('\\x6f'::bytea, 1, 'sold')", [], a.backendEnv.DATABASE_URL)
    assert.deepEqual(await names(a, '/v1/pets'), ['a', 'o'])
  })

  test('while Redis cannot be read, nothing is reused, and a create does not fail for it', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true
    })
    unreachable.on('error', () => {})
    const marker = new RedisChangeMarker(unreachable, 'nowhere:')
    assert.equal(await marker.current(), undefined)
    await marker.bump()
    unreachable.disconnect()
  })
})

describe('CachedPages', () => {
  /** Pages that say how often they were read, under a version the test moves. */
  function cached(options: { maxEntries: number; maxAgeMs?: number }) {
    const reads: string[] = []
    const inner: PetPages = {
      page: (query) => {
        reads.push(query.cursor ?? '')
        return { body: `${query.cursor ?? ''}@${reads.length}`, link: undefined }
      }
    }
    const version: { token: PetsVersionToken | undefined; current(): PetsVersionToken | undefined } = {
      token: 1,
      current: () => version.token
    }
    const clock = new ManualClock(0)
    return { pages: new CachedPages(inner, version, clock, options), reads, version, clock }
  }
  const read = (pages: PetPages, cursor: string) => (pages.page({ limit: 20, cursor }) as { body: string }).body

  test('a page lives while the version stands still, and the oldest goes first past the bound', () => {
    const { pages, reads, version } = cached({ maxEntries: 2 })
    assert.equal(read(pages, 'a'), 'a@1')
    assert.equal(read(pages, 'b'), 'b@2')
    assert.equal(read(pages, 'a'), 'a@1', 'served again without a read')
    read(pages, 'c')
    assert.equal(read(pages, 'a'), 'a@4', 'the oldest entry was dropped past the bound')
    version.token = 2
    assert.equal(read(pages, 'c'), 'c@5', 'a change of version makes an entry stale')
    version.token = undefined
    read(pages, 'c')
    read(pages, 'c')
    assert.deepEqual(reads, ['a', 'b', 'c', 'a', 'c', 'c', 'c'], 'nothing is reused while the version cannot be read')
  })

  test('with a maximum age, a page is served until it is that old, by the clock', () => {
    const { pages, clock } = cached({ maxEntries: 10, maxAgeMs: 100 })
    assert.equal(read(pages, 'a'), 'a@1')
    clock.advance(99)
    assert.equal(read(pages, 'a'), 'a@1')
    clock.advance(1)
    assert.equal(read(pages, 'a'), 'a@2')
  })

  test('PAGE_CACHE_ENTRIES is an integer from 0 to 100000, 256 by default', () => {
    assert.equal(loadConfig({}).pageCacheEntries, 256)
    assert.equal(loadConfig({ PAGE_CACHE_ENTRIES: '0' }).pageCacheEntries, 0)
    assert.throws(() => loadConfig({ PAGE_CACHE_ENTRIES: '-1' }), ConfigError)
    assert.throws(() => loadConfig({ PAGE_CACHE_ENTRIES: 'lots' }), ConfigError)
  })
})
