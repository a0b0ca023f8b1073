import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { runCli, killServes, startServe } from '../helpers/cli.ts'
import { createSchema } from '../helpers/postgres.ts'
import { redisClusterSkip, startRedisCluster } from '../helpers/redis-cluster.ts'
import { freePort } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

const skip = (await backendSkip(postgresBackend)) || redisClusterSkip()

type Instance = Awaited<ReturnType<typeof startServe>> & { origin: string }

describe('two serve processes on one PostgreSQL and a 3-node Redis Cluster', { skip }, () => {
  test('limits stay exact: 200 concurrent requests of one Free key admit exactly 60; the counters are in the cluster', async (t) => {
    const cluster = await startRedisCluster()
    const schema = await createSchema()
    const instances: Instance[] = []
    // Registered first so it runs first: stop the processes, then what they used.
    t.after(async () => {
      await killServes(instances)
      await cluster.stop()
      await schema.drop()
    })
    const prefix = 'animal-store-cluster-test:'
    const env = { DATABASE_URL: schema.url, REDIS_CLUSTER_NODES: cluster.nodes, REDIS_KEY_PREFIX: prefix }
    assert.equal((await runCli(['migrate'], env)).code, 0)
    for (let i = 0; i < 2; i++) {
      const port = await freePort()
      const origin = `http://127.0.0.1:${port}`
      instances.push({ ...(await startServe({ ...env, PORT: String(port), LOG_LEVEL: 'info' }, origin)), origin })
    }
    const [a, b] = instances as [Instance, Instance]
    for (const instance of instances) {
      const ready = await fetch(`${instance.origin}/readyz`)
      assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok', redis: 'ok' } })
    }

    const created = await runCli(['keys', 'create', '--plan', 'free', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    const free = JSON.parse(created.stdout) as { id: string; key: string }
    // The requests must share one UTC minute window.
    const intoMinute = Date.now() % 60_000
    if (intoMinute > 45_000) await delay(60_000 - intoMinute + 100)
    const minuteStart = Date.now() - (Date.now() % 60_000)
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await fetch(`${(i % 2 === 0 ? a : b).origin}/v1/pets?limit=1`, {
          headers: { authorization: `Bearer ${free.key}` }
        })
        await response.arrayBuffer()
        return response.status
      })
    )
    assert.equal(Date.now() - (Date.now() % 60_000), minuteStart, 'all in one minute window')
    assert.equal(statuses.filter((status) => status === 200).length, 60, 'exactly the Free plan per minute')
    assert.equal(statuses.filter((status) => status === 429).length, 140)

    // The counters live in the cluster, under the key's hash tag, one slot for all of them.
    const client = cluster.client()
    try {
      const dayStart = minuteStart - (minuteStart % 86_400_000)
      const base = `${prefix}rl:{key:${free.id}}`
      assert.equal(await client.get(`${base}:m:${minuteStart}`), '60')
      assert.equal(await client.get(`${base}:d:${dayStart}`), '60')
      const slots = await Promise.all(
        [`${base}:m:${minuteStart}`, `${base}:d:${dayStart}`, `${base}:ban`].map((key) => client.cluster('KEYSLOT', key))
      )
      assert.equal(new Set(slots).size, 1)
    } finally {
      client.disconnect()
    }
    const usage = await runCli(['keys', 'usage', free.id, '--json'], env)
    assert.equal(usage.code, 0, usage.stderr)
    assert.equal((JSON.parse(usage.stdout) as { limits: Array<{ remaining: number }> }).limits[0]!.remaining, 0)

    // Two keys of one Free customer: 60 between them, exactly; the customer's windows in one slot.
    const customer = await runCli(['customers', 'create', '--name', 'Cluster Co', '--plan', 'free', '--json'], env)
    assert.equal(customer.code, 0, customer.stderr)
    const customerId = (JSON.parse(customer.stdout) as { id: string }).id
    const shared: string[] = []
    for (const name of ['production', 'staging']) {
      const made = await runCli(['keys', 'create', '--customer', customerId, '--name', name, '--json'], env)
      assert.equal(made.code, 0, made.stderr)
      shared.push((JSON.parse(made.stdout) as { key: string }).key)
    }
    const into = Date.now() % 60_000
    if (into > 45_000) await delay(60_000 - into + 100)
    const sharedMinute = Date.now() - (Date.now() % 60_000)
    const sharedStatuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await fetch(`${instances[i % 2]!.origin}/v1/pets?limit=1`, {
          headers: { authorization: `Bearer ${shared[Math.floor(i / 2) % 2]!}` }
        })
        await response.arrayBuffer()
        return response.status
      })
    )
    assert.equal(sharedStatuses.filter((status) => status === 200).length, 60, "exactly the customer's Free per minute, both keys together")
    const sharedClient = cluster.client()
    try {
      const base = `${prefix}rl:{key:${customerId}}`
      assert.equal(await sharedClient.get(`${base}:m:${sharedMinute}`), '60', "one counter for the customer's keys")
      const slots = await Promise.all(
        [`${base}:m:${sharedMinute}`, `${base}:r:${sharedMinute}`, `${base}:ban`].map((key) => sharedClient.cluster('KEYSLOT', key))
      )
      assert.equal(new Set(slots).size, 1, "the customer's windows and ban in one slot")
    } finally {
      sharedClient.disconnect()
    }

    // A monthly quota of 5 on the cluster: exactly 5 of 20 sent to both instances, the month's key in the customer's slot.
    const metered = await runCli(
      [
        'customers',
        'create',
        '--name',
        'Metered Co',
        '--plan',
        'enterprise',
        '--per-minute',
        '100',
        '--per-day',
        '1000',
        '--per-month',
        '5',
        '--json'
      ],
      env
    )
    assert.equal(metered.code, 0, metered.stderr)
    const meteredId = (JSON.parse(metered.stdout) as { id: string }).id
    const meteredKey = await runCli(['keys', 'create', '--customer', meteredId, '--json'], env)
    assert.equal(meteredKey.code, 0, meteredKey.stderr)
    const monthKey = (JSON.parse(meteredKey.stdout) as { key: string }).key
    const monthStatuses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`${instances[i % 2]!.origin}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${monthKey}` } })
        return { status: response.status, code: response.status === 429 ? ((await response.json()) as { code: string }).code : 'ok' }
      })
    )
    assert.equal(monthStatuses.filter(({ status }) => status === 200).length, 5, 'exactly the monthly quota, across both instances')
    assert.ok(
      monthStatuses.every(({ status, code }) => status === 200 || code === 'quota_exceeded'),
      JSON.stringify(monthStatuses)
    )
    const monthClient = cluster.client()
    try {
      const base = `${prefix}rl:{key:${meteredId}}`
      const now = new Date()
      const month = `${base}:mo:${Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)}`
      assert.equal(await monthClient.get(month), '5', "the month's counter")
      const slots = await Promise.all([month, `${base}:ban`].map((key) => monthClient.cluster('KEYSLOT', key)))
      assert.equal(new Set(slots).size, 1, "the month's key in the customer's slot")
    } finally {
      monthClient.disconnect()
    }

    // One master gone: the cluster cannot serve its slots; /readyz says so, and requests are still answered.
    await cluster.killNode(0)
    for (const instance of instances) {
      await until(
        async () => {
          const body = (await (await fetch(`${instance.origin}/readyz`)).json()) as { status: string; checks: { redis: string } }
          return body.status === 'ready' && body.checks.redis.startsWith('degraded')
        },
        { timeoutMs: 15_000, intervalMs: 100, what: '/readyz to report the cluster degraded once a master is gone' }
      )
    }
    const during = await runCli(['keys', 'create', '--plan', 'free', '--json'], env)
    const duringKey = (JSON.parse(during.stdout) as { key: string }).key
    for (const instance of instances) {
      const answered = await fetch(`${instance.origin}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${duringKey}` } })
      assert.equal(answered.status, 200)
    }

    // The whole cluster gone: /readyz says so, and requests are still answered on per-instance limits.
    await cluster.stop()
    for (const instance of instances) {
      await until(
        async () => {
          const body = (await (await fetch(`${instance.origin}/readyz`)).json()) as { checks: { redis: string } }
          return body.checks.redis.startsWith('degraded')
        },
        { timeoutMs: 10_000, intervalMs: 100, what: '/readyz to report the cluster degraded' }
      )
    }
    const other = await runCli(['keys', 'create', '--plan', 'free', '--json'], env)
    const otherKey = (JSON.parse(other.stdout) as { key: string }).key
    const response = await fetch(`${a.origin}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${otherKey}` } })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('x-ratelimit-remaining'), '59')
  })
})
