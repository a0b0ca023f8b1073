import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AuditEvent, Key, UsageBucket } from '@animal-store/contract'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { killServes, runCli, startServe } from '../helpers/cli.ts'
import { createSchema } from '../helpers/postgres.ts'
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.ts'
import { freePort } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

// Two serve processes on one PostgreSQL and one Redis, each with its own operator listener:
// either answers for both, from the database and Redis they share.

const skip = await backendSkip(postgresBackend)

interface Instance {
  api: string
  admin: string
}

describe('the operator API of two instances on PostgreSQL and Redis', { skip }, () => {
  test('usage counted by one is read on the other within 15 s; bans, unbans and revocations reach both', async (t) => {
    const schema = await createSchema()
    const serves: Array<Awaited<ReturnType<typeof startServe>>> = []
    t.after(async () => {
      await killServes(serves)
      await schema.drop()
    })
    const env = { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
    const cli = async (...args: string[]) => {
      const result = await runCli([...args, '--json'], env)
      assert.equal(result.code, 0, result.stderr)
      return JSON.parse(result.stdout) as { id: string; key: string; token: string }
    }
    await runCli(['migrate'], env)
    const instances: Instance[] = []
    for (let i = 0; i < 2; i++) {
      const [port, adminPort] = [await freePort(), await freePort()]
      const api = `http://127.0.0.1:${port}`
      serves.push(await startServe({ ...env, PORT: String(port), ADMIN_PORT: String(adminPort) }, api))
      instances.push({ api, admin: `http://127.0.0.1:${adminPort}/admin/v1` })
    }
    const [a, b] = instances as [Instance, Instance]
    const { token } = await cli('operators', 'create', '--role', 'admin', '--name', 'on call')
    const { id, key } = await cli('keys', 'create', '--plan', 'free', '--name', 'hammer')
    const asOperator = { authorization: `Bearer ${token}` }
    // A 503 (a store that did not answer, on a loaded machine) says to retry: so does the test.
    const read = async <T>(instance: Instance, path: string): Promise<T> => {
      let response = await fetch(instance.admin + path, { headers: asOperator })
      for (let tries = 1; response.status === 503 && tries < 10; tries++)
        response = await fetch(instance.admin + path, { headers: asOperator })
      assert.equal(response.status, 200, await response.clone().text())
      return (await response.json()) as T
    }
    const post = (instance: Instance, path: string) => fetch(instance.admin + path, { method: 'POST', headers: asOperator })
    const call = async (instance: Instance) => {
      const response = await fetch(`${instance.api}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
      return response.status === 429 ? ((await response.json()) as { code: string }).code : String(response.status)
    }

    // 130 requests in one UTC minute: started at least 10 s before it ends.
    await until(() => Date.now() % 60_000 < 50_000, { timeoutMs: 15_000, intervalMs: 200, what: 'a minute with 10 s left' })
    const outcomes: Record<string, number> = {}
    for (let i = 0; i < 130; i++) {
      const outcome = await call(a)
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
    }
    assert.deepEqual(outcomes, { 200: 60, rate_limited: 60, api_key_banned: 10 })

    // Instance A adds its counts every 10 s; B reads them from the database.
    const sums = async () => {
      const buckets = await read<UsageBucket[]>(b, `/keys/${id}/usage?granularity=hour`)
      return buckets.reduce((sum, x) => [sum[0]! + x.allowed, sum[1]! + x.rateLimited, sum[2]! + x.banned], [0, 0, 0])
    }
    await until(async () => (await sums()).join('/') === '60/60/10', {
      timeoutMs: 15_000,
      intervalMs: 500,
      what: 'usage 60/60/10 on the other instance'
    })

    for (const instance of instances)
      assert.deepEqual(
        (await read<Key[]>(instance, '/bans')).map((k) => k.id),
        [id]
      )
    assert.equal((await post(b, `/keys/${id}/unban`)).status, 200)
    for (const instance of instances) assert.deepEqual(await read<Key[]>(instance, '/bans'), [])
    assert.equal(await call(a), 'rate_limited', 'unbanned on A by B; the minute is still spent')

    // B refuses at once what it revoked; A within its key cache's 2 s.
    const { key: fresh, id: freshId } = await cli('keys', 'create', '--plan', 'pro')
    for (const instance of instances) {
      assert.equal((await fetch(`${instance.api}/v1/pets`, { headers: { authorization: `Bearer ${fresh}` } })).status, 200)
    }
    assert.equal((await post(b, `/keys/${freshId}/revoke`)).status, 200)
    assert.equal((await fetch(`${b.api}/v1/pets`, { headers: { authorization: `Bearer ${fresh}` } })).status, 401)
    await until(async () => (await fetch(`${a.api}/v1/pets`, { headers: { authorization: `Bearer ${fresh}` } })).status === 401, {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the revocation to reach the other instance'
    })
    const audit = await read<AuditEvent[]>(a, `/audit?actor=on%20call`)
    assert.deepEqual(
      audit.map((event) => [event.action, event.target.id]),
      [
        ['key.revoke', freshId],
        ['key.unban', id]
      ]
    )
  })
})
