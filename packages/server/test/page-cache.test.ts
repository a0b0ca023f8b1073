import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.ts'
import { PageCache } from '../src/http/page-cache.ts'
import { postJson, startApp, type TestApp } from './helpers/app.ts'
import { postgresBackend, sqliteBackend } from './helpers/backends.ts'

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
    assert.match(first.headers.get('link')!, /rel="next"/)
    assert.equal(Number(second.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1)
    assert.notEqual(second.headers.get('x-request-id'), first.headers.get('x-request-id'))
  })

  test('a create shows on the next list at once, on the first page and on a followed cursor', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend })
    for (const name of ['a', 'b', 'c']) await create(app, name)
    const link = (await app.fetch('/v1/pets?limit=2')).headers.get('link')!
    const next = new URL(/<([^>]+)>/.exec(link)![1]!)
    const cursorPage = `${next.pathname}${next.search}`
    assert.deepEqual(await names(app, '/v1/pets?limit=5'), ['a', 'b', 'c'])
    assert.deepEqual(await names(app, cursorPage), ['c'])
    await create(app, 'd')
    assert.deepEqual(await names(app, '/v1/pets?limit=5'), ['a', 'b', 'c', 'd'])
    assert.deepEqual(await names(app, cursorPage), ['c', 'd'])
  })

  test('a pet written by another program on the file shows within a second', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend })
    await create(app, 'a')
    assert.deepEqual(await names(app, '/v1/pets'), ['a'])
    insertFromOutside(app, 'outside')
    const started = performance.now()
    while (!(await names(app, '/v1/pets')).includes('outside')) {
      assert.ok(performance.now() - started < 1000, 'the outside write was not seen within 1 s')
      await sleep(20)
    }
  })

  test('PAGE_CACHE_ENTRIES=0 keeps no page: an outside write shows on the very next request', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, env: { PAGE_CACHE_ENTRIES: '0' } })
    await create(app, 'a')
    assert.deepEqual(await names(app, '/v1/pets'), ['a'])
    insertFromOutside(app, 'outside')
    assert.deepEqual(await names(app, '/v1/pets'), ['a', 'outside'])
  })

  test('the shared store (PostgreSQL) offers no revision, so nothing is cached there', async (t) => {
    const skip = await postgresBackend.unavailable()
    if (skip !== undefined) {
      if (process.env.CI === 'true') assert.fail(`PostgreSQL and Redis must be reachable under CI: ${skip}`)
      t.skip(skip)
      return
    }
    const { storage } = await postgresBackend.create(t)
    assert.equal(storage.pets.revision, undefined)
    assert.equal(typeof (await sqliteBackend.create(t)).storage.pets.revision, 'function')
  })
})

describe('PageCache', () => {
  test('an entry lives while the revision stands still, and the oldest goes first past the bound', () => {
    let revision = 1
    const cache = new PageCache(() => revision, 2)
    const page = (body: string) => ({ body, link: undefined })
    cache.set('a', 1, page('A'))
    cache.set('b', 1, page('B'))
    assert.equal(cache.get('a')?.body, 'A')
    cache.set('c', 1, page('C'))
    assert.equal(cache.get('a'), undefined, 'the oldest entry is dropped past the bound')
    assert.equal(cache.get('c')?.body, 'C')
    revision = 2
    assert.equal(cache.get('b'), undefined, 'a change of revision makes every entry stale')
    cache.set('d', 1, page('D'))
    assert.equal(cache.get('d'), undefined, 'a page read before the change is stale when stored')
  })

  test('PAGE_CACHE_ENTRIES is an integer from 0 to 100000, 256 by default', () => {
    assert.equal(loadConfig({}).pageCacheEntries, 256)
    assert.equal(loadConfig({ PAGE_CACHE_ENTRIES: '0' }).pageCacheEntries, 0)
    assert.throws(() => loadConfig({ PAGE_CACHE_ENTRIES: '-1' }), ConfigError)
    assert.throws(() => loadConfig({ PAGE_CACHE_ENTRIES: 'lots' }), ConfigError)
  })
})
