import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { startApp } from '../helpers/app.ts'
import { DatabaseSync } from 'node:sqlite'
import { SqliteCounterFile } from '../../src/storage/sqlite/counters.ts'
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations/list.ts'
import { runCli, startServe } from '../helpers/cli.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from '../helpers/redis.ts'
import { TcpProxy } from '../helpers/tcp-proxy.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

const START = new Date('2026-06-15T12:00:10Z')
const redisReason = await redisUnavailable()

function dayRemaining(response: Response): number {
  return Number(/"day";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')![1])
}

/** What the counter file holds for a key right now, read on a read-only connection of its own (as another process sees it). */
function fileCounters(path: string, keyId: string): { dayUsed: number; bannedUntil: number | null; unbanRequests: number } | undefined {
  const file = new DatabaseSync(path, { readOnly: true, timeout: 5000 })
  try {
    const subject = `key:${keyId}`
    const row = file.prepare('SELECT day_used, banned_until FROM rate_limit_counters WHERE subject = ?').get(subject) as
      { day_used: number; banned_until: number | null } | undefined
    const unbans = file.prepare('SELECT count(*) AS n FROM rate_limit_unbans WHERE subject = ?').get(subject) as { n: number }
    return row === undefined ? undefined : { dayUsed: row.day_used, bannedUntil: row.banned_until, unbanRequests: unbans.n }
  } finally {
    file.close()
  }
}

describe('rate limits: durability, administration, outages', () => {
  test("embedded: a restart keeps the day's usage and the bans; keys list shows them", async (t) => {
    const first = await startApp(t, { now: START })
    const used = await first.keyWithId({ plan: 'free' })
    const banned = await first.keyWithId({ plan: 'enterprise', perMinute: 1, perDay: 100 })
    for (let i = 0; i < 30; i++) assert.equal((await first.fetch('/v1/pets', { key: used.key })).status, 200)
    await first.fetch('/v1/pets', { key: banned.key })
    await first.fetch('/v1/pets', { key: banned.key })
    await assertError(await first.fetch('/v1/pets', { key: banned.key }), 'api_key_banned')
    await first.close()

    const second = await startApp(t, { now: new Date('2026-06-15T12:05:00Z'), shareStorageWith: first })
    const after = await second.fetch('/v1/pets', { key: used.key })
    assert.equal(after.status, 200)
    assert.equal(dayRemaining(after), 1000 - 31, "the day's usage survived the restart")
    await assertError(await second.fetch('/v1/pets', { key: banned.key }), 'api_key_banned')
    second.clock.set(new Date(START.getTime() + 900_000 + 1000))
    assert.equal((await second.fetch('/v1/pets', { key: banned.key })).status, 200, 'the ban ends on time after a restart')
  })

  test('embedded: the per-second counter flush writes the counters to the file', async (t) => {
    const app = await startApp(t, { now: START })
    const file = new DatabaseSync(app.backendEnv.DATABASE_URL!.slice('sqlite:'.length), { readOnly: true, timeout: 5000 })
    t.after(() => file.close())
    const key = await app.keyWithId({ plan: 'free' })
    for (let i = 0; i < 4; i++) assert.equal((await app.fetch('/v1/pets', { key: key.key })).status, 200)
    const dayUsed = () =>
      (file.prepare('SELECT day_used FROM rate_limit_counters WHERE subject = ?').get(`key:${key.id}`) as { day_used: number } | undefined)
        ?.day_used
    await until(() => dayUsed() === 4, { timeoutMs: 10_000, what: 'the counters to reach the file' })
  })

  test(
    'embedded: the flush commits without fsync and leaves the shared connection at synchronous=FULL, ' + 'so creates stay fsynced',
    async (t) => {
      const db = new DatabaseSync(join(tempDir(t), 'counters.db'))
      t.after(() => db.close())
      for (const version of [2, 5, 10]) db.exec(SQLITE_MIGRATIONS.find((m) => m.version === version)!.sql)
      db.exec('PRAGMA synchronous = FULL')
      const synchronous = () => (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous
      const row = {
        subject: 'key:k',
        minuteStart: 0,
        minuteUsed: 1,
        refusals: 0,
        dayStart: 0,
        dayUsed: 1,
        monthStart: 0,
        monthUsed: 1,
        bannedUntil: null
      }
      const counters = new SqliteCounterFile(db)
      counters.save([row], { fsync: false })
      assert.equal(synchronous(), 2, 'FULL again after the flush')
      assert.deepEqual(counters.find('key:k'), row)
    }
  )

  test('embedded: kill -9 loses at most the last second of usage, no ban; keys list and keys unban across processes', async (t) => {
    const dir = tempDir(t)
    const port = await freePort()
    const path = join(dir, 'store.db')
    const env = { DATABASE_URL: `sqlite:${path}`, PORT: String(port), LOG_LEVEL: 'trace' }
    const origin = `http://127.0.0.1:${port}`
    const createKey = async (...limits: string[]) =>
      JSON.parse((await runCli(['keys', 'create', '--plan', 'enterprise', ...limits, '--json'], env)).stdout) as { id: string; key: string }
    // `key` gets banned, which is written to the file at once; `steady` only makes requests, whose
    // usage only the per-second flush writes.
    const [key, steady] = await Promise.all([
      createKey('--per-minute', '3', '--per-day', '500'),
      createKey('--per-minute', '100', '--per-day', '500')
    ])
    const first = await startServe(env, origin)
    t.after(() => first.child.kill('SIGKILL'))
    const auth = { authorization: `Bearer ${key.key}` }
    for (let i = 0; i < 2; i++)
      assert.equal((await fetch(`${origin}/v1/pets`, { headers: { authorization: `Bearer ${steady.key}` } })).status, 200)
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${origin}/v1/pets`, { headers: auth })).status, 200)
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${origin}/v1/pets`, { headers: auth })).status, 429)
    const banned = await fetch(`${origin}/v1/pets`, { headers: auth })
    assert.equal(((await banned.json()) as { code: string }).code, 'api_key_banned')
    // A ban is in the file the moment it starts, with the usage of its key so far: nothing to wait for.
    const atBan = fileCounters(path, key.id)
    assert.equal(atBan?.dayUsed, 3)
    assert.equal(typeof atBan?.bannedUntil, 'number', 'the ban is in the file before its response is sent')
    // Plain usage reaches the file with the next flush, within a second (3 s leaves room for a loaded machine).
    await until(() => fileCounters(path, steady.id)?.dayUsed === 2, {
      timeoutMs: 3000,
      what: "the per-second flush to write steady's usage"
    })
    first.child.kill('SIGKILL')
    await first.exited

    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Array<{
      id: string
      bannedUntil: string | null
      usage: { day: number }
    }>
    const listedKey = listed.find((k) => k.id === key.id)
    assert.equal(listedKey?.usage.day, 3)
    assert.match(listedKey?.bannedUntil ?? '', /^\d{4}-/, 'keys list shows the ban')
    assert.equal(listed.find((k) => k.id === steady.id)?.usage.day, 2, 'the flushed usage survived kill -9')

    const second = await startServe(env, origin)
    t.after(() => second.child.kill('SIGKILL'))
    const stillBanned = await fetch(`${origin}/v1/pets`, { headers: auth })
    assert.equal(((await stillBanned.json()) as { code: string }).code, 'api_key_banned', 'the ban survived kill -9')
    const unban = await runCli(['keys', 'unban', key.id], env)
    assert.equal(unban.code, 0, unban.stderr)
    // Each refusal after the unban counts toward a new ban, so ask once, after the serving process has
    // taken the unban request the CLI left in the file (it lifts the ban in the same step, within a second).
    await until(() => fileCounters(path, key.id)?.unbanRequests === 0, {
      timeoutMs: 3000,
      what: 'the running server to take the unban request from the file'
    })
    const afterUnban = await fetch(`${origin}/v1/pets`, { headers: auth })
    assert.notEqual(((await afterUnban.json()) as { code?: string }).code, 'api_key_banned', 'the running server applied the unban')
    const relisted = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Array<{ id: string; bannedUntil: string | null }>
    assert.equal(relisted.find((k) => k.id === key.id)?.bannedUntil, null)
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0)
  })

  test('redis: keys list and keys unban reach the shared counters', { skip: redisReason ?? false }, async (t) => {
    const prefix = redisPrefix(t)
    const app = await startApp(t, { env: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix } })
    // A second instance on the same store and Redis.
    const other = await startApp(t, { env: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix }, shareStorageWith: app })
    const env = { ...app.backendEnv, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix }
    const key = JSON.parse(
      (await runCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '1', '--per-day', '50', '--json'], env)).stdout
    ) as { id: string; key: string }
    // The service clocks here are real time, like the CLI's.
    const now = Date.now()
    for (const instance of [app, other]) instance.clock.set(now)
    await app.fetch('/v1/pets', { key: key.key })
    await app.fetch('/v1/pets', { key: key.key })
    await assertError(await app.fetch('/v1/pets', { key: key.key }), 'api_key_banned')
    await assertError(await other.fetch('/v1/pets', { key: key.key }), 'api_key_banned', 'banned')
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Array<{
      id: string
      bannedUntil: string | null
      usage: { day: number }
    }>
    const mine = listed.find((k) => k.id === key.id)!
    assert.equal(mine.usage.day, 1)
    assert.ok(mine.bannedUntil !== null)
    assert.equal((await runCli(['keys', 'unban', key.id], env)).code, 0)
    // Each in a minute of its own, so the per-minute limit of 1 has room for it.
    for (const [minutes, instance] of [app, other].entries()) {
      instance.clock.advance((minutes + 1) * 60_000)
      assert.equal((await instance.fetch('/v1/pets', { key: key.key })).status, 200, `unbanned at once on ${instance.origin}`)
    }
  })

  test(
    'redis: an outage falls back to per-instance limits, /readyz and /metrics say so, and Redis is used again when it returns',
    { skip: redisReason ?? false },
    async (t) => {
      const target = new URL(TEST_REDIS_URL)
      const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) })
      t.after(() => proxy.down())
      const app = await startApp(t, { now: START, env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: redisPrefix(t) } })
      const key = await app.key({ plan: 'free' })
      for (let i = 0; i < 10; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      assert.deepEqual(((await (await app.fetch('/readyz', { key: null })).json()) as { checks: unknown }).checks, {
        database: 'ok',
        redis: 'ok'
      })

      await proxy.down()
      const during = await app.fetch('/v1/pets', { key })
      assert.equal(during.status, 200, 'the service keeps answering')
      assert.ok(during.headers.get('x-ratelimit-remaining') !== null)
      const ready = await app.fetch('/readyz', { key: null })
      assert.equal(ready.status, 200)
      assert.match(((await ready.json()) as { checks: { redis: string } }).checks.redis, /^degraded/)
      const metrics = await (await app.fetch('/metrics', { key: null })).text()
      assert.match(metrics, /rate_limit_store_fallbacks_total 1/)
      assert.match(metrics, /rate_limit_store_degraded 1/)
      // Per-instance limits still hold during the outage.
      for (let i = 0; i < 59; i++) await app.fetch('/v1/pets', { key })
      assert.equal((await app.fetch('/v1/pets', { key })).status, 429)

      await proxy.up()
      // Another key asks until Redis is used again, so that the key watched spends nothing meanwhile.
      const probe = await app.key({ plan: 'free' })
      await until(
        async () => {
          await (await app.fetch('/v1/pets', { key: probe })).arrayBuffer()
          const body = (await (await app.fetch('/readyz', { key: null })).json()) as { checks: { redis: string } }
          return body.checks.redis === 'ok'
        },
        // Each check spends a request of the probe's minute: not too often.
        { timeoutMs: 10_000, intervalMs: 100, what: 'Redis to be used again' }
      )
      // What the design promises (docs/operations.md): back on the shared counters, the count goes
      // on from what Redis held before the outage (10), and the requests this instance admitted on
      // its own counters meanwhile (60) are not added to it; so this is the 11th, in both windows.
      const back = await app.fetch('/v1/pets', { key })
      assert.equal(back.status, 200, 'back on the shared counters, which never saw the outage requests')
      // START is 50 s before the minute ends and 43,190 s before the day does.
      assert.equal(back.headers.get('ratelimit'), '"minute";r=49;t=50, "day";r=989;t=43190', 'both counts went on from the 10 Redis held')
      assert.match(await (await app.fetch('/metrics', { key: null })).text(), /rate_limit_store_degraded 0/)
    }
  )
})
