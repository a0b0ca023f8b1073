import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import type { RateLimitStatus } from '@animal-store/contract'
import { assertError } from '../helpers/assertions.ts'
import { postgresBackend, sqliteBackend, suiteBackends, type Backend } from '../helpers/backends.ts'
import { runCli, killServes, startServe } from '../helpers/cli.ts'
import { createSchema } from '../helpers/postgres.ts'
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { roomInMinute, until } from '../helpers/wait.ts'

// Key management as an operator does it: the real CLI against real `serve` processes, over real
// HTTP. On the embedded default one process serves and the CLI is the other; on PostgreSQL +
// Redis two processes serve and the CLI is a third.

type Instance = Awaited<ReturnType<typeof startServe>> & { origin: string }

interface Deployment {
  env: Record<string, string>
  /** Every serving instance; the first and the last are the same one on the embedded default. */
  instances: Instance[]
  first: Instance
  last: Instance
}

async function environment(t: TestContext, backend: Backend): Promise<Record<string, string>> {
  if (backend === sqliteBackend) return { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` }
  const schema = await createSchema()
  t.after(() => schema.drop())
  return { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
}

async function deploy(t: TestContext, backend: Backend): Promise<Deployment> {
  const env = await environment(t, backend)
  // Migrated once up front, so the instances start on a ready schema.
  assert.equal((await runCli(['migrate'], env)).code, 0)
  const instances: Instance[] = []
  t.after(async () => {
    await killServes(instances)
  })
  for (let i = 0; i < (backend === postgresBackend ? 2 : 1); i++) {
    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    instances.push({ ...(await startServe({ ...env, PORT: String(port), LOG_LEVEL: 'info' }, origin)), origin })
  }
  return { env, instances, first: instances[0]!, last: instances.at(-1)! }
}

function call(instance: Instance, path: string, key: string | undefined): Promise<Response> {
  return fetch(instance.origin + path, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } })
}

async function cli<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const result = await runCli(args, env)
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

type Created = { id: string; key: string }

/** Whether `request` answers `status` within `ms` of `since` (the 5 seconds every change must take at most). */
async function answersWithin(request: () => Promise<Response>, status: number, since: number, what: string, ms = 5000) {
  let last: Response | undefined
  await until(
    async () => {
      last = await request()
      if (last.status !== status) await last.arrayBuffer()
      return last.status === status
    },
    { timeoutMs: Math.max(0, since + ms - Date.now()), intervalMs: 100, what }
  )
  return last!
}

const status = async (instance: Instance, key: string) => {
  const response = await call(instance, '/v1/rate_limit', key)
  assert.equal(response.status, 200)
  return { body: (await response.json()) as RateLimitStatus, headers: response.headers }
}

for (const { backend, skip } of await suiteBackends()) {
  // The tests spend most of their time waiting (caches, graces, CLI processes): they run together.
  describe(`key management on ${backend.name}`, { skip, concurrency: true }, () => {
    test('keys update: the new plan reaches every instance within 5 s, usage and ban kept', async (t) => {
      const { env, instances, first } = await deploy(t, backend)
      const free = await cli<Created>(env, 'keys', 'create', '--plan', 'free', '--json')
      await roomInMinute()
      // Every instance has the key cached as free before the change.
      for (const instance of instances) assert.equal((await status(instance, free.key)).body.plan, 'free')
      for (let i = 0; i < 10; i++) assert.equal((await call(first, '/v1/pets?limit=1', free.key)).status, 200)
      const updatedAt = Date.now()
      const updated = await cli<{ plan: string; limits: unknown; prefix: string }>(
        env,
        'keys',
        'update',
        free.id,
        '--plan',
        'pro',
        '--json'
      )
      assert.equal(updated.plan, 'pro')
      assert.deepEqual(updated.limits, { perMinute: 300, perDay: 10000, perMonth: null })
      // Seen by each instance within 5 s, with the 10 requests already taken still counted.
      for (const instance of instances) {
        await until(async () => (await status(instance, free.key)).body.plan === 'pro', {
          timeoutMs: updatedAt + 5000 - Date.now(),
          intervalMs: 100,
          what: `${instance.origin} to apply the new plan`
        })
        const { body, headers } = await status(instance, free.key)
        assert.deepEqual(
          body.limits.map((w) => [w.window, w.limit, w.remaining]),
          [
            ['minute', 300, 290],
            ['day', 10000, 9990]
          ],
          instance.origin
        )
        assert.equal(headers.get('x-ratelimit-limit'), '300')
        assert.equal(headers.get('x-ratelimit-remaining'), '290')
      }
      // The same secret still works: nothing was reissued.
      for (const instance of instances) assert.equal((await call(instance, '/v1/pets?limit=1', free.key)).status, 200)

      // A ban in force stays in force through a plan change.
      const tight = await cli<Created>(env, 'keys', 'create', '--plan', 'free', '--per-minute', '1', '--json')
      for (const instance of instances) assert.equal((await status(instance, tight.key)).body.plan, 'free')
      assert.equal((await call(first, '/v1/pets?limit=1', tight.key)).status, 200)
      await assertError(await call(first, '/v1/pets?limit=1', tight.key), 'rate_limited')
      await assertError(await call(first, '/v1/pets?limit=1', tight.key), 'api_key_banned')
      const movedAt = Date.now()
      await cli(env, 'keys', 'update', tight.id, '--plan', 'business', '--json')
      for (const instance of instances) {
        await until(async () => (await status(instance, tight.key)).body.plan === 'business', {
          timeoutMs: movedAt + 5000 - Date.now(),
          intervalMs: 100,
          what: `${instance.origin} to apply the new plan`
        })
        const banned = await status(instance, tight.key)
        assert.equal(typeof banned.body.bannedUntil, 'number', 'the rate_limit of a banned key answers 200 with its ban')
        assert.ok(banned.body.bannedUntil! > Date.now() / 1000)
        await assertError(await call(instance, '/v1/pets?limit=1', tight.key), 'api_key_banned')
      }
    })

    test('keys rotate: the old secret works for the grace, then 401 everywhere; --grace 0 ends it; one quota', async (t) => {
      const { env, instances, first, last } = await deploy(t, backend)
      // The quota both secrets share is the day's: no minute boundary can split it.
      const original = await cli<Created>(env, 'keys', 'create', '--plan', 'free', '--per-minute', '1000', '--per-day', '6', '--json')
      assert.equal((await call(last, '/v1/pets?limit=1', original.key)).status, 200, 'cached as valid first')
      const rotated = await cli<Created & { previousSecretExpiresAt: string; plan: string }>(
        env,
        'keys',
        'rotate',
        original.id,
        '--grace',
        '8',
        '--json'
      )
      assert.equal(rotated.id, original.id)
      assert.equal(rotated.plan, 'free')
      assert.notEqual(rotated.key, original.key)
      assert.match(rotated.key, /^as_live_[0-9A-Za-z]{43}$/)
      const graceEnds = Date.parse(rotated.previousSecretExpiresAt)
      // Within the grace both secrets work, on every instance, and draw on one quota: 1 + 5 = 6.
      assert.equal((await call(first, '/v1/pets?limit=1', rotated.key)).status, 200)
      assert.equal((await call(last, '/v1/pets?limit=1', original.key)).status, 200)
      for (let i = 0; i < 2; i++) assert.equal((await call(first, '/v1/pets?limit=1', original.key)).status, 200)
      assert.equal((await call(last, '/v1/pets?limit=1', rotated.key)).status, 200)
      const old = await status(last, original.key)
      const fresh = await status(first, rotated.key)
      assert.deepEqual(old.body, fresh.body)
      assert.equal(fresh.body.limits[1]!.remaining, 0)
      await assertError(await call(first, '/v1/pets?limit=1', original.key), 'rate_limited')
      await assertError(await call(last, '/v1/pets?limit=1', rotated.key), 'rate_limited')
      assert.ok(Date.now() < graceEnds, 'all of the above happened within the grace')

      // After the grace: 401 on every instance, the new secret still works.
      for (const instance of instances) {
        const refused = await answersWithin(
          () => call(instance, '/v1/rate_limit', original.key),
          401,
          graceEnds,
          'the old secret to be refused'
        )
        await assertError(refused, 'unauthorized', 'rotated')
      }
      assert.equal((await call(last, '/v1/rate_limit', rotated.key)).status, 200)

      // --grace 0: the secret it replaces is refused everywhere within 5 s.
      const again = await cli<Created & { previousSecretExpiresAt: string }>(env, 'keys', 'rotate', original.id, '--grace', '0', '--json')
      assert.ok(Date.parse(again.previousSecretExpiresAt) <= Date.now(), 'the old secret stops at once')
      const endedAt = Date.now()
      for (const instance of instances) await answersWithin(() => call(instance, '/v1/rate_limit', rotated.key), 401, endedAt, 'grace 0')
      assert.equal((await call(first, '/v1/rate_limit', again.key)).status, 200)
      const listed = await cli<Array<{ id: string; prefix: string }>>(env, 'keys', 'list', '--json')
      assert.ok(again.key.startsWith(listed[0]!.prefix), 'the list shows the new secret prefix')
      assert.ok(!JSON.stringify(listed).includes(again.key), 'only hashes are stored: the list never shows a secret')
    })

    test('GET /v1/rate_limit consumes nothing, answers keys usage alike, and is 401 without a key', async (t) => {
      const { env, first } = await deploy(t, backend)
      const key = await cli<Created>(env, 'keys', 'create', '--plan', 'free', '--json')
      await roomInMinute()
      assert.equal((await call(first, '/v1/pets?limit=1', key.key)).status, 200)
      const seen: RateLimitStatus[] = []
      for (let i = 0; i < 5; i++) {
        const { body, headers } = await status(first, key.key)
        assert.equal(headers.get('x-ratelimit-remaining'), '59')
        assert.equal(headers.get('x-ratelimit-limit'), '60')
        assert.match(headers.get('ratelimit') ?? '', /^"minute";r=59;t=\d+, "day";r=999;t=\d+$/)
        assert.match(headers.get('ratelimit-policy') ?? '', /"minute";q=60;w=60, "day";q=1000;w=86400/)
        seen.push(body)
      }
      for (const body of seen) assert.deepEqual(body, seen[0])
      assert.equal(seen[0]!.plan, 'free')
      assert.deepEqual(
        seen[0]!.limits.map((w) => [w.window, w.limit, w.remaining]),
        [
          ['minute', 60, 59],
          ['day', 1000, 999]
        ]
      )
      assert.equal(seen[0]!.limits[0]!.reset, Math.ceil((Date.now() - (Date.now() % 60_000) + 60_000) / 1000))
      assert.equal(seen[0]!.bannedUntil, null)
      // The CLI reports the same use (the embedded default's file lags the server by up to a second).
      await until(
        async () => JSON.stringify(await cli(env, 'keys', 'usage', key.id, '--json')) === JSON.stringify({ id: key.id, ...seen[0] }),
        { timeoutMs: 5000, intervalMs: 200, what: 'keys usage to report what GET /v1/rate_limit does' }
      )

      // Without a valid key: 401, limited per address like every /v1 call.
      const first401 = await call(first, '/v1/rate_limit', undefined)
      const second401 = await call(first, '/v1/rate_limit', 'as_live_' + '0'.repeat(43))
      await assertError(first401, 'unauthorized')
      await assertError(second401, 'unauthorized')
      assert.equal(first401.headers.get('x-ratelimit-limit'), '60')
      assert.equal(Number(second401.headers.get('x-ratelimit-remaining')), Number(first401.headers.get('x-ratelimit-remaining')) - 1)
      // Unknown query parameters are refused, as on every operation; another method is 405.
      await assertError(await call(first, '/v1/rate_limit?verbose=1', key.key), 'validation_failed', 'verbose')
      const post = await fetch(`${first.origin}/v1/rate_limit`, { method: 'POST', headers: { authorization: `Bearer ${key.key}` } })
      await assertError(post, 'method_not_allowed')
      assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS')
    })

    test('every bad input of keys update, rotate and usage exits non-zero, one clear line, and changes nothing', async (t) => {
      const { env } = await deploy(t, backend)
      const key = await cli<Created>(
        env,
        'keys',
        'create',
        '--plan',
        'pro',
        '--name',
        'shop',
        '--expires-at',
        '2099-01-01T00:00:00Z',
        '--json'
      )
      const revoked = await cli<Created>(env, 'keys', 'create', '--plan', 'free', '--json')
      assert.equal((await runCli(['keys', 'revoke', revoked.id], env)).code, 0)
      const before = await cli<unknown[]>(env, 'keys', 'list', '--json')
      const cases: Array<[string[], RegExp]> = [
        [['keys', 'update', 'key_doesnotexist000', '--plan', 'pro'], /no key has id "key_doesnotexist000"/],
        [['keys', 'update', key.id, '--plan', 'gold'], /--plan must be one of business, enterprise, free, pro/],
        [['keys', 'update', key.id, '--plan', 'enterprise'], /custom plan enterprise needs both --per-minute and --per-day/],
        [['keys', 'update', key.id, '--plan', 'enterprise', '--per-minute', '10'], /custom plan enterprise needs both/],
        [['keys', 'update', key.id, '--expires-at', '2001-01-01T00:00:00Z'], /--expires-at must be in the future/],
        [['keys', 'update', key.id, '--expires-at', 'soon'], /--expires-at must be an ISO 8601/],
        [['keys', 'update', key.id, '--expires-at', '2099-01-01T00:00:00Z', '--no-expiry'], /either --expires-at or --no-expiry/],
        [['keys', 'update', key.id], /nothing to change/],
        [['keys', 'update', key.id, '--json'], /nothing to change/],
        [['keys', 'update', key.id, '--per-minute', '0'], /--per-minute must be a whole number/],
        [['keys', 'update', key.id, '--per-day', 'lots'], /--per-day must be a whole number/],
        [['keys', 'update', key.id, '--name', 'a\u0007b'], /--name must be at most 200 characters/],
        [['keys', 'update', key.id, '--grace', '5'], /does not take --grace/],
        [['keys', 'update', revoked.id, '--plan', 'pro'], /is revoked/],
        [['keys', 'update'], /exactly one key id/],
        [['keys', 'update', key.id, key.id, '--plan', 'pro'], /exactly one key id/],
        [['keys', 'rotate', 'key_doesnotexist000'], /no key has id/],
        [['keys', 'rotate', key.id, '--grace', '-1'], /--grace/],
        [['keys', 'rotate', key.id, '--grace', '1.5'], /--grace must be a whole number/],
        [['keys', 'rotate', key.id, '--grace', '2592001'], /--grace must be a whole number of seconds from 0 to 2592000/],
        [['keys', 'rotate', key.id, '--plan', 'pro'], /does not take --plan/],
        [['keys', 'rotate', revoked.id], /is revoked/],
        [['keys', 'usage', 'key_doesnotexist000'], /no key has id/],
        [['keys', 'usage'], /exactly one key id/]
      ]
      // They change nothing, so they may run together.
      const results = await Promise.all(cases.map(([args]) => runCli(args, env)))
      for (const [i, [args, message]] of cases.entries()) {
        const result = results[i]!
        assert.notEqual(result.code, 0, `${args.join(' ')} should fail`)
        assert.match(result.stderr, message, args.join(' '))
        assert.equal(result.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${result.stderr}`)
        assert.equal(result.stdout, '', `${args.join(' ')} prints nothing on stdout`)
      }
      assert.deepEqual(await cli(env, 'keys', 'list', '--json'), before, 'no key changed')
      // And the good cases change exactly what they name.
      const renamed = await cli<Record<string, unknown>>(env, 'keys', 'update', key.id, '--name', 'shop two', '--no-expiry', '--json')
      assert.equal(renamed.name, 'shop two')
      assert.equal(renamed.expiresAt, null)
      assert.equal(renamed.plan, 'pro')
      const enterprise = await cli<Record<string, unknown>>(
        env,
        'keys',
        'update',
        key.id,
        '--plan',
        'enterprise',
        '--per-minute',
        '5000',
        '--per-day',
        '9000',
        '--json'
      )
      assert.deepEqual(enterprise.limits, { perMinute: 5000, perDay: 9000, perMonth: null })
      const back = await cli<Record<string, unknown>>(env, 'keys', 'update', key.id, '--plan', 'free', '--json')
      assert.deepEqual(back.limits, { perMinute: 60, perDay: 1000, perMonth: null }, 'a new plan brings its own numbers')
    })
  })
}
