import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { nextLink } from '../helpers/links.ts'

async function seed(t: TestApp, count: number, status?: (i: number) => string): Promise<number[]> {
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await postJson(t, '/v1/pets', {
      name: `pet ${i}`,
      categoryId: 1,
      ...(status === undefined ? {} : { status: status(i) })
    })
    assert.equal(response.status, 201)
    ids.push(((await response.json()) as { id: number }).id)
  }
  return ids
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`GET /v1/pets [${backend.name}]`, { skip }, () => {
    test('an empty store is an empty array with no next link', async (t) => {
      const app = await startApp(t, { backend })
      const response = await app.fetch('/v1/pets')
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
      assert.equal(response.headers.get('link'), null)
      assert.equal(await response.text(), '[]')
    })

    test('default limit is 20, ascending ids, bare array of Pet', async (t) => {
      const app = await startApp(t, { backend })
      const ids = await seed(app, 25)
      const response = await app.fetch('/v1/pets')
      const pets = (await response.json()) as Array<Record<string, unknown>>
      assert.equal(pets.length, 20)
      assert.deepEqual(
        pets.map((p) => p.id),
        ids.slice(0, 20)
      )
      assert.deepEqual(Object.keys(pets[0]!), ['id', 'name', 'categoryId', 'status'])
      assert.ok(nextLink(response))
    })

    test('paging 45 pets by 20: 20, 20, 5, no repeats, no gaps, no next at the end', async (t) => {
      const app = await startApp(t, { backend })
      const ids = await seed(app, 45)
      const seen: number[] = []
      const sizes: number[] = []
      let url: string | undefined = `${app.base}/pets?limit=20`
      let last: Response | undefined
      while (url !== undefined) {
        assert.ok(url.startsWith(`${app.base}/pets?limit=20&cursor=`) || url === `${app.base}/pets?limit=20`, url)
        last = await app.fetch(url.slice(app.origin.length))
        assert.equal(last.status, 200)
        const page = (await last.json()) as Array<{ id: number }>
        sizes.push(page.length)
        seen.push(...page.map((p) => p.id))
        url = nextLink(last)
      }
      assert.deepEqual(sizes, [20, 20, 5])
      assert.deepEqual(seen, ids)
      assert.equal(last!.headers.get('link'), null)
    })

    test('a pet created mid-walk shows on a later page, never an earlier one', async (t) => {
      const app = await startApp(t, { backend })
      const ids = await seed(app, 30)
      const first = await app.fetch('/v1/pets?limit=20')
      const firstPage = (await first.json()) as Array<{ id: number }>
      const created = (await (await postJson(app, '/v1/pets', { name: 'latecomer', categoryId: 2 })).json()) as { id: number }
      const second = await app.fetch(nextLink(first)!.slice(app.origin.length))
      const secondPage = (await second.json()) as Array<{ id: number }>
      assert.deepEqual(
        firstPage.map((p) => p.id),
        ids.slice(0, 20)
      )
      assert.deepEqual(
        secondPage.map((p) => p.id),
        [...ids.slice(20), created.id]
      )
      assert.equal(second.headers.get('link'), null)
    })

    test('an exact multiple of limit ends without a next link', async (t) => {
      const app = await startApp(t, { backend })
      await seed(app, 4)
      const first = await app.fetch('/v1/pets?limit=2')
      const second = await app.fetch(nextLink(first)!.slice(app.origin.length))
      assert.equal(((await second.json()) as unknown[]).length, 2)
      assert.equal(second.headers.get('link'), null)
    })

    test('status filters, and the next link repeats limit and status', async (t) => {
      const app = await startApp(t, { backend })
      const statuses = ['available', 'pending', 'sold']
      const ids = await seed(app, 12, (i) => statuses[i % 3]!)
      const response = await app.fetch('/v1/pets?status=pending&limit=2')
      const page = (await response.json()) as Array<{ id: number; status: string }>
      assert.deepEqual(
        page.map((p) => p.id),
        [ids[1], ids[4]]
      )
      assert.ok(page.every((p) => p.status === 'pending'))
      const next = nextLink(response)!
      assert.match(next, new RegExp(`^${app.base}/pets\\?limit=2&status=pending&cursor=[A-Za-z0-9_-]+$`))
      const rest = (await (await app.fetch(next.slice(app.origin.length))).json()) as Array<{ id: number }>
      assert.deepEqual(
        rest.map((p) => p.id),
        [ids[7], ids[10]]
      )
    })

    test('limit 1 and 100 are accepted; limit is never clamped', async (t) => {
      const app = await startApp(t, { backend })
      await seed(app, 3)
      assert.equal(((await (await app.fetch('/v1/pets?limit=1')).json()) as unknown[]).length, 1)
      assert.equal(((await (await app.fetch('/v1/pets?limit=100')).json()) as unknown[]).length, 3)
      for (const bad of ['0', '101', '-1', '1.5', '1e1', '+5', ' 5', 'abc', '', '99999999999999999999', '0x10']) {
        await assertError(await app.fetch(`/v1/pets?limit=${encodeURIComponent(bad)}`), 'validation_failed', 'limit')
      }
      await assertError(await app.fetch('/v1/pets?limit=5&limit=6'), 'validation_failed', 'limit')
    })

    test('invalid status and unknown parameters are validation_failed', async (t) => {
      const app = await startApp(t, { backend })
      const body = await assertError(await app.fetch('/v1/pets?status=lost'), 'validation_failed', 'status')
      assert.match(body.message, /available, pending, sold/)
      await assertError(await app.fetch('/v1/pets?status=Available'), 'validation_failed', 'status')
      await assertError(await app.fetch('/v1/pets?page=2'), 'validation_failed', '"page"')
    })

    test('a malformed cursor is invalid_cursor', async (t) => {
      const app = await startApp(t, { backend })
      for (const bad of [
        '',
        'x',
        '!!!',
        Buffer.from('*:abc').toString('base64url'),
        Buffer.from('*:0').toString('base64url'),
        Buffer.from('lost:5').toString('base64url'),
        Buffer.from('*:9223372036854775808').toString('base64url'),
        'a'.repeat(129)
      ]) {
        await assertError(await app.fetch(`/v1/pets?cursor=${encodeURIComponent(bad)}`), 'invalid_cursor')
      }
    })

    test('a cursor is bound to its status filter', async (t) => {
      const app = await startApp(t, { backend })
      await seed(app, 3, () => 'sold')
      const first = await app.fetch('/v1/pets?status=sold&limit=1')
      const cursor = new URL(nextLink(first)!).searchParams.get('cursor')!
      await assertError(await app.fetch(`/v1/pets?limit=1&cursor=${cursor}`), 'invalid_cursor', 'status=sold')
      await assertError(await app.fetch(`/v1/pets?status=pending&limit=1&cursor=${cursor}`), 'invalid_cursor')
      assert.equal((await app.fetch(`/v1/pets?status=sold&limit=1&cursor=${cursor}`)).status, 200)
    })
  })
}
