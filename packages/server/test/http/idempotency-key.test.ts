import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'

async function count(app: TestApp): Promise<number> {
  return ((await (await app.fetch('/v1/pets?limit=100')).json()) as unknown[]).length
}

/** fetch refuses some header values (tabs, non-ASCII); node:http sends them as a client could. */
async function rawCreate(app: TestApp, apiKey: string, idempotencyKey: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${app.origin}/v1/pets`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': Buffer.from(idempotencyKey, 'utf8').toString('latin1')
        }
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          body += chunk
        })
        res.on('end', () => resolve(new Response(body, { status: res.statusCode!, headers: res.headers as Record<string, string> })))
      }
    )
    req.on('error', reject)
    req.end('{"name":"n","categoryId":1}')
  })
}

const create = (app: TestApp, body: unknown, key: string, apiKey?: string) =>
  postJson(app, '/v1/pets', body, { headers: { 'idempotency-key': key }, ...(apiKey === undefined ? {} : { key: apiKey }) })

for (const { backend, skip } of await suiteBackends()) {
  describe(`Idempotency-Key on POST /v1/pets [${backend.name}]`, { skip }, () => {
    test('the same key and body replays the first response (status, body, Location) and creates nothing', async (t) => {
      const app = await startApp(t, { backend })
      const first = await create(app, '{"name":"Rex","categoryId":9223372036854775807}', 'order-1')
      const firstText = await first.text()
      assert.equal(first.status, 201)
      assert.equal(first.headers.get('idempotent-replayed'), null)
      for (const body of ['{"name":"Rex","categoryId":9223372036854775807}', '{ "categoryId" : 9223372036854775807 ,\n "name":"Rex" }']) {
        const again = await create(app, body, 'order-1')
        assert.equal(again.status, 201)
        assert.equal(again.headers.get('idempotent-replayed'), 'true')
        assert.equal(again.headers.get('location'), first.headers.get('location'))
        assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8')
        assert.equal(await again.text(), firstText, 'the exact first body, int64 and all')
        assert.ok(again.headers.get('x-ratelimit-remaining') !== null)
      }
      assert.equal(await count(app), 1)
    })

    test('the same key with a different body is 422 idempotency_key_reused', async (t) => {
      const app = await startApp(t, { backend })
      assert.equal((await create(app, { name: 'Rex', categoryId: 1 }, 'k')).status, 201)
      await assertError(await create(app, { name: 'Rex', categoryId: 2 }, 'k'), 'idempotency_key_reused')
      await assertError(await create(app, { name: 'Rex', categoryId: 1, status: 'available' }, 'k'), 'idempotency_key_reused')
      assert.equal(await count(app), 1)
    })

    test('20 concurrent retries with one key create exactly one pet', async (t) => {
      const app = await startApp(t, { backend })
      const responses = await Promise.all(Array.from({ length: 20 }, () => create(app, { name: 'Once', categoryId: 5 }, 'retry-storm')))
      const statuses = responses.map((r) => r.status)
      assert.ok(
        statuses.every((s) => s === 201 || s === 409),
        statuses.join(',')
      )
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ id?: number; code?: string }>))
      const ids = new Set(bodies.filter((b) => b.id !== undefined).map((b) => b.id))
      assert.equal(ids.size, 1, 'every 201 names the same pet')
      for (const [i, body] of bodies.entries()) if (statuses[i] === 409) assert.equal(body.code, 'idempotency_key_in_use')
      assert.equal(await count(app), 1)
      const settled = await create(app, { name: 'Once', categoryId: 5 }, 'retry-storm')
      assert.equal(settled.status, 201)
      assert.equal(settled.headers.get('idempotent-replayed'), 'true')
    })

    test('keys are scoped to the API key; a failed first request is not stored; malformed keys are 400', async (t) => {
      const app = await startApp(t, { backend })
      const alice = await app.key({ plan: 'pro' })
      const bob = await app.key({ plan: 'pro' })
      const a = (await (await create(app, { name: 'A', categoryId: 1 }, 'shared', alice)).json()) as { id: number }
      const b = (await (await create(app, { name: 'B', categoryId: 2 }, 'shared', bob)).json()) as { id: number }
      assert.notEqual(a.id, b.id)
      await assertError(await create(app, { name: '', categoryId: 1 }, 'fresh', alice), 'validation_failed')
      assert.equal(
        (await create(app, { name: 'C', categoryId: 1 }, 'fresh', alice)).status,
        201,
        'the invalid first try did not take the key'
      )
      for (const bad of ['', 'x'.repeat(256), 'tab\there', 'ünicode']) {
        await assertError(await rawCreate(app, alice, bad), 'validation_failed', 'Idempotency-Key')
      }
      const twice = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${app.origin}/v1/pets`,
          {
            method: 'POST',
            headers: [
              ['authorization', `Bearer ${alice}`],
              ['content-type', 'application/json'],
              ['idempotency-key', 'a1'],
              ['idempotency-key', 'a2']
            ].flat()
          },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          }
        )
        req.on('error', reject)
        req.end('{"name":"n","categoryId":1}')
      })
      assert.equal(twice, 400, 'an Idempotency-Key sent twice is refused, not joined')
      assert.equal((await create(app, { name: 'D', categoryId: 1 }, 'x'.repeat(255), alice)).status, 201)
      assert.equal((await create(app, { name: 'E', categoryId: 1 }, ' !~', alice)).status, 201)
    })

    test('a first request that fails in storage releases the key', async (t) => {
      const app = await startApp(t, { backend })
      const original = app.storage.pets.create.bind(app.storage.pets)
      app.storage.pets.create = async () => {
        throw new Error('disk on fire')
      }
      await assertError(await create(app, { name: 'F', categoryId: 1 }, 'flaky'), 'internal_error')
      app.storage.pets.create = original
      const retried = await create(app, { name: 'F', categoryId: 1 }, 'flaky')
      assert.equal(retried.status, 201)
      assert.equal(retried.headers.get('idempotent-replayed'), null)
    })

    test('records are kept 24 hours, then the key is free again (and purged)', async (t) => {
      const app = await startApp(t, { backend })
      assert.equal((await create(app, { name: 'G', categoryId: 1 }, 'daily')).status, 201)
      app.clock.advance(24 * 60 * 60 * 1000 - 1000)
      assert.equal((await create(app, { name: 'G', categoryId: 1 }, 'daily')).headers.get('idempotent-replayed'), 'true')
      app.clock.advance(2000)
      const fresh = await create(app, { name: 'Other', categoryId: 9 }, 'daily')
      assert.equal(fresh.status, 201, 'an expired key is not reused-with-another-body')
      assert.equal(fresh.headers.get('idempotent-replayed'), null)
      app.clock.advance(25 * 60 * 60 * 1000)
      assert.equal(await app.storage.idempotency.purge(app.clock.now() - 24 * 60 * 60 * 1000), 1)
    })

    test('two instances racing on one key create one pet', async (t) => {
      const a = await startApp(t, { backend })
      const b = await startApp(t, { backend, shareStorageWith: a })
      const key = await a.key({ plan: 'pro' })
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => create([a, b][i % 2]!, { name: 'Race', categoryId: 3 }, 'race', key))
      )
      assert.ok(responses.every((r) => r.status === 201 || r.status === 409))
      assert.equal(await count(a), 1)
    })
  })
}
