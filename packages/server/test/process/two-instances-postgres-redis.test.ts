import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { assertError } from '../helpers/assertions.ts'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { runCli, killServes, startServe } from '../helpers/cli.ts'
import { createSchema } from '../helpers/postgres.ts'
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.ts'
import { nextLink } from '../helpers/links.ts'
import { freePort } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

const skip = await backendSkip(postgresBackend)

type Instance = Awaited<ReturnType<typeof startServe>> & { origin: string }

function call(instance: Instance, path: string, key: string, init: RequestInit = {}): Promise<Response> {
  return fetch(instance.origin + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) }
  })
}

async function createKey(env: Record<string, string>, ...args: string[]): Promise<{ id: string; key: string }> {
  const result = await runCli(['keys', 'create', ...args, '--json'], env)
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout) as { id: string; key: string }
}

describe('two serve processes on one PostgreSQL and one Redis', { skip }, () => {
  test('act as one service: ids, pages, revocations and rate limits are shared', async (t) => {
    const schema = await createSchema()
    const instances: Instance[] = []
    // Registered first so it runs first: stop the processes, then drop what they used.
    t.after(async () => {
      await killServes(instances)
      await schema.drop()
    })
    const env = { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }

    // Both start at once on an empty schema: they race to migrate it, and one waits for the other.
    const ports = [await freePort(), await freePort()]
    instances.push(
      ...(await Promise.all(
        ports.map(async (port) => {
          const origin = `http://127.0.0.1:${port}`
          return { ...(await startServe({ ...env, PORT: String(port) }, origin)), origin }
        })
      ))
    )
    const [a, b] = instances as [Instance, Instance]
    for (const instance of instances) {
      const ready = await fetch(`${instance.origin}/readyz`)
      assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok', redis: 'ok' } })
    }

    const admin = await createKey(env, '--plan', 'enterprise', '--per-minute', '100000', '--per-day', '1000000')

    // Creates spread over both, concurrently.
    const created = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await call(i % 2 === 0 ? a : b, '/v1/pets', admin.key, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `pet ${i}`, categoryId: i + 1, status: i % 3 === 0 ? 'sold' : 'available' })
        })
        assert.equal(response.status, 201)
        return ((await response.json()) as { id: number }).id
      })
    )
    const ids = [...created].sort((x, y) => x - y)
    assert.equal(new Set(ids).size, 40, 'ids are unique')
    // One after the other, alternating: each id is greater than the one before, whoever assigns it.
    let previous = ids.at(-1)!
    for (let i = 0; i < 6; i++) {
      const response = await call(i % 2 === 0 ? b : a, '/v1/pets', admin.key, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"next","categoryId":1}'
      })
      const { id } = (await response.json()) as { id: number }
      assert.ok(id > previous, `${id} > ${previous}`)
      previous = id
      ids.push(id)
    }

    // Lists read back from either are identical, ascending, and hold every pet.
    const listA = await (await call(a, '/v1/pets?limit=100', admin.key)).text()
    const listB = await (await call(b, '/v1/pets?limit=100', admin.key)).text()
    assert.equal(listA, listB)
    assert.deepEqual(
      (JSON.parse(listA) as Array<{ id: number }>).map((p) => p.id),
      ids
    )

    // A cursor from one instance is honoured by the other.
    const seen: number[] = []
    let path: string | undefined = '/v1/pets?limit=7&status=available'
    for (let hop = 0; path !== undefined; hop++) {
      const response: Response = await call(hop % 2 === 0 ? a : b, path, admin.key)
      assert.equal(response.status, 200)
      seen.push(...((await response.json()) as Array<{ id: number }>).map((p) => p.id))
      const next = nextLink(response)
      path = next === undefined ? undefined : new URL(next).pathname + new URL(next).search
    }
    const available = (JSON.parse(listA) as Array<{ id: number; status: string }>).filter((p) => p.status === 'available').map((p) => p.id)
    assert.deepEqual(seen, available)

    // A Free key's quota is one quota: 60 requests over both, then the 61st is refused by either.
    const free = await createKey(env, '--plan', 'free')
    // The 62 requests take well under a second; they must not straddle the end of a UTC minute.
    // Close to one, wait for the next by the real clock: the minute window is what this part exercises.
    const intoMinute = Date.now() % 60_000
    if (intoMinute > 55_000) await delay(60_000 - intoMinute + 100)
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => (await call(i % 2 === 0 ? a : b, '/v1/pets?limit=1', free.key)).status)
    )
    assert.deepEqual(statuses, Array(60).fill(200))
    for (const instance of [a, b]) {
      const refused = await call(instance, '/v1/pets?limit=1', free.key)
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0')
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
      await assertError(refused, 'rate_limited')
    }

    // A revocation made by the CLI is refused by both instances within 5 s.
    for (const instance of [a, b]) assert.equal((await call(instance, '/v1/pets?limit=1', admin.key)).status, 200, 'cached as valid first')
    const revokedAt = Date.now()
    assert.equal((await runCli(['keys', 'revoke', admin.id], env)).code, 0)
    await Promise.all(
      [a, b].map(async (instance) => {
        let refused: Response | undefined
        await until(
          async () => {
            const response = await call(instance, '/v1/pets?limit=1', admin.key)
            if (response.status === 401) refused = response
            else await response.arrayBuffer()
            return refused !== undefined
          },
          {
            timeoutMs: revokedAt + 5000 - Date.now(),
            intervalMs: 100,
            what: `${instance.origin} to refuse the revoked key (within 5 s of the revoke)`
          }
        )
        await assertError(refused!, 'unauthorized', 'revoked')
      })
    )

    for (const instance of instances) instance.child.kill('SIGTERM')
    assert.deepEqual(await Promise.all(instances.map((instance) => instance.exited)), [0, 0])
  })
})
