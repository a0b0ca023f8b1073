import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test, type TestContext } from 'node:test'
import type { Key, Plan } from '@animal-store/contract'
import { runCli, startServe, killServes } from '../helpers/cli.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { createSchema, postgresUnavailable } from '../helpers/postgres.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from '../helpers/redis.ts'
import { freePort, tempDir } from '../helpers/temp.ts'

// The previous release (deploy/UPGRADE_FROM): a database it made is upgraded in place by this
// build, and on PostgreSQL it keeps serving from the database this build migrated while the load
// moves over (rolling upgrades).

/**
 * Every key the previous release made with `--plan` is the only key of a customer of its own: one
 * it made, or, from a release before customers, one made from the key when upgraded.
 */
function assertOwnCustomers(keys: readonly Key[]): void {
  assert.ok(
    keys.every((key) => /^cus_[0-9A-Za-z]{16}$/.test(key.customerId)),
    JSON.stringify(keys.map((k) => k.customerId))
  )
  assert.equal(new Set(keys.map((key) => key.customerId)).size, keys.length, 'no two keys share a customer')
}

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const PREVIOUS = readFileSync(join(REPO, 'deploy/UPGRADE_FROM'), 'utf8').trim()
const git = (args: string[], cwd = REPO) => spawnSync('git', args, { cwd, encoding: 'utf8' })

function unavailable(): string | undefined {
  if (git(['--version']).status !== 0) return 'git is not installed'
  if (git(['cat-file', '-e', `${PREVIOUS}^{commit}`]).status !== 0) return `this clone does not hold commit ${PREVIOUS} (a shallow clone?)`
  return undefined
}

const reason = unavailable()
if (reason !== undefined && process.env.CI === 'true') throw new Error(`the upgrade test must run under CI=true, but: ${reason}`)
if (reason !== undefined) process.stderr.write(`\n!!! SKIPPING the upgrade-in-place test: ${reason}\n\n`)
const pgReason = (await postgresUnavailable()) ?? (await redisUnavailable())
if (pgReason !== undefined && process.env.CI === 'true')
  throw new Error(`PostgreSQL and Redis must be reachable under CI=true: ${pgReason}`)

/** The previous release, checked out, installed and built once for the file's tests; its CLI. */
let previousBin = ''
let worktree = ''

function run(command: string, args: string[], cwd: string): void {
  // This Node (24) first: `--ignore-scripts` leaves the worktree without the pinned one.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` }
  const done = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 600_000 })
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${(done.stderr || done.stdout).slice(-2000)}`)
}

async function json<T>(args: string[], env: Record<string, string>, bin?: string): Promise<T> {
  const result = await runCli(args, env, bin)
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

async function serve(t: TestContext, env: Record<string, string>, bin?: string) {
  const [port, adminPort] = [await freePort(), await freePort()]
  const origin = `http://127.0.0.1:${port}`
  const instance = await startServe({ ...env, PORT: String(port), ADMIN_PORT: String(adminPort), LOG_LEVEL: 'warn' }, origin, bin)
  t.after(() => killServes([instance]))
  const request =
    (base: string) =>
    (path: string, token: string, init: RequestInit = {}) =>
      fetch(base + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } })
  return { ...instance, call: request(origin), admin: request(`http://127.0.0.1:${adminPort}`) }
}

/** Keys made by the previous release: a Free one used 3 times, an enterprise one banned, a revoked Pro one. */
async function keysOfThePreviousRelease(t: TestContext, env: Record<string, string>) {
  const made = async (...args: string[]) => {
    const key = await json<{ id: string; key: string }>(['keys', 'create', ...args, '--json'], env, previousBin)
    recordIssuedKey(key.key)
    return key
  }
  const free = await made('--plan', 'free', '--name', 'Acme production')
  const banned = await made('--plan', 'enterprise', '--per-minute', '1', '--per-day', '100', '--name', 'Scraper')
  const revoked = await made('--plan', 'pro')
  assert.equal((await runCli(['keys', 'revoke', revoked.id], env, previousBin)).code, 0)
  const old = await serve(t, env, previousBin)
  for (let i = 0; i < 3; i++) assert.equal((await old.call('/v1/pets', free.key)).status, 200)
  assert.equal((await old.call('/v1/pets', banned.key)).status, 200)
  for (let i = 0; i < 2; i++) await old.call('/v1/pets', banned.key)
  assert.equal(((await (await old.call('/v1/pets', banned.key)).json()) as { code: string }).code, 'api_key_banned')
  return { free, banned, revoked, old }
}

/** A schema of its own that the previous release migrated and serves, with its keys and an admin operator's token. */
async function previousReleaseOnPostgres(t: TestContext) {
  const schema = await createSchema()
  t.after(() => schema.drop())
  const env = { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
  assert.equal((await runCli(['migrate'], env, previousBin)).code, 0)
  const keys = await keysOfThePreviousRelease(t, env)
  const { token } = await json<{ token: string }>(['operators', 'create', '--role', 'admin', '--name', 'Ada', '--json'], env, previousBin)
  recordIssuedKey(token)
  return { env, token, ...keys }
}

describe(`upgrading in place from ${PREVIOUS}`, { skip: reason ?? false }, () => {
  before(
    () => {
      worktree = mkdtempSync(join(tmpdir(), `animal-store-${PREVIOUS}-`))
      run('git', ['worktree', 'add', '--detach', worktree, PREVIOUS], REPO)
      run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], worktree)
      run('npm', ['run', 'build', '--silent'], worktree)
      previousBin = join(worktree, 'packages/server/bin/animal-store.js')
    },
    { timeout: 600_000 }
  )
  after(() => {
    if (worktree === '') return
    if (git(['worktree', 'remove', '--force', worktree]).status !== 0) {
      rmSync(worktree, { recursive: true, force: true })
      git(['worktree', 'prune'])
    }
  })

  test('SQLite: every key answers as before, with both scopes; the day used and the ban are kept', async (t) => {
    const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` }
    assert.equal((await runCli(['migrate'], env, previousBin)).code, 0)
    const { free, banned, revoked, old } = await keysOfThePreviousRelease(t, env)
    old.child.kill('SIGTERM')
    assert.equal(await old.exited, 0, 'the previous release drained and flushed its counters')

    const now = await serve(t, env)
    const answer = await now.call('/v1/pets', free.key)
    assert.equal(answer.status, 200)
    assert.match(answer.headers.get('ratelimit') ?? '', /"day";r=996;/, 'the day used before the upgrade still counts')
    assert.equal(((await (await now.call('/v1/pets', banned.key)).json()) as { code: string }).code, 'api_key_banned')
    assert.equal((await now.call('/v1/pets', revoked.key)).status, 401)
    assert.equal((await now.call('/v1/pets', free.key, { method: 'POST', body: '{"name":"Rex","categoryId":1}' })).status, 201)

    const keys = await json<Key[]>(['keys', 'list', '--json'], env)
    assert.deepEqual(
      keys.map(({ name, plan, limits, scopes }) => ({ name, plan, limits, scopes })),
      [
        {
          name: 'Acme production',
          plan: 'free',
          limits: { perMinute: 60, perDay: 1000, perMonth: null },
          scopes: ['pets:read', 'pets:write']
        },
        { name: 'Scraper', plan: 'enterprise', limits: { perMinute: 1, perDay: 100, perMonth: null }, scopes: ['pets:read', 'pets:write'] },
        { name: null, plan: 'pro', limits: { perMinute: 300, perDay: 10000, perMonth: null }, scopes: ['pets:read', 'pets:write'] }
      ]
    )
    assertOwnCustomers(keys)
    const plans = await json<Plan[]>(['plans', 'list', '--json'], env)
    assert.deepEqual(
      plans.map((plan) => [plan.id, plan.customers]),
      [
        ['business', 0],
        ['enterprise', 1],
        ['free', 1],
        ['pro', 1]
      ]
    )
  })

  test(
    'PostgreSQL: this build migrates while the previous release serves; both answer correctly after',
    { skip: pgReason ?? false },
    async (t) => {
      const { env, free, banned, old, token } = await previousReleaseOnPostgres(t)

      const migrated = await runCli(['migrate'], env)
      assert.equal(migrated.code, 0, migrated.stderr)
      // The previous release's CLI refuses the newer schema; its serving instance goes on: reads, a
      // create, and through its operator API a new key and a change, each audited.
      assert.match((await runCli(['keys', 'list'], env, previousBin)).stderr, /newer than this build's newest/)
      assert.equal((await old.call('/v1/pets', free.key)).status, 200)
      assert.equal((await old.call('/v1/pets', free.key, { method: 'POST', body: '{"name":"Rex","categoryId":1}' })).status, 201)
      const createdMidUpgrade = await old.admin('/admin/v1/keys', token, { method: 'POST', body: '{"plan":"pro"}' })
      assert.equal(createdMidUpgrade.status, 201)
      const during = (await createdMidUpgrade.json()) as { id: string; key: string }
      recordIssuedKey(during.key)
      const renamed = await old.admin(`/admin/v1/keys/${during.id}`, token, { method: 'PATCH', body: '{"name":"made mid-upgrade"}' })
      assert.equal(renamed.status, 200)
      assert.equal((await old.call('/v1/pets', during.key)).status, 200)
      assert.equal(((await (await old.call('/v1/pets', banned.key)).json()) as { code: string }).code, 'api_key_banned')

      const now = await serve(t, env)
      const answer = await now.call('/v1/pets', free.key)
      assert.equal(answer.status, 200)
      assert.match(
        answer.headers.get('ratelimit') ?? '',
        /"day";r=994;/,
        'both releases count the same day: 3 + 2 by the previous one, 1 here'
      )
      assert.equal((await now.call('/v1/pets', during.key)).status, 200)
      assert.equal(((await (await now.call('/v1/pets', banned.key)).json()) as { code: string }).code, 'api_key_banned')
      const keys = await json<Key[]>(['keys', 'list', '--json'], env)
      assert.deepEqual(
        keys.map((key) => [key.plan, key.scopes.join(' ')]),
        [
          ['free', 'pets:read pets:write'],
          ['enterprise', 'pets:read pets:write'],
          ['pro', 'pets:read pets:write'],
          ['pro', 'pets:read pets:write']
        ]
      )
      // The key the previous release made after the migration got its customer when this build started.
      assertOwnCustomers(keys)
      assert.equal((await old.call('/v1/pets', free.key)).status, 200, 'the previous release still answers after this one started')
    }
  )
  test(
    'PostgreSQL under load: start this build beside the previous one, move the load, stop the old one',
    { skip: pgReason ?? false },
    async (t) => {
      const { env, free, banned, old, token } = await previousReleaseOnPostgres(t)
      const busy = await json<{ key: string }>(
        ['keys', 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '100000000', '--json'],
        env,
        previousBin
      )
      recordIssuedKey(busy.key)

      // Steady load: keyed reads and creates with an Idempotency-Key, four at a time, on whichever instance is current.
      let target = old
      let stopped = false
      const answers: Array<{ by: string; status: number }> = []
      const created: string[] = []
      const worker = async (n: number) => {
        for (let i = 0; !stopped; i++) {
          const instance = target
          const by = instance === old ? 'previous' : 'this build'
          const read = await instance.call('/v1/pets?limit=5', busy.key)
          answers.push({ by, status: read.status })
          await read.arrayBuffer()
          const write = await instance.call('/v1/pets', busy.key, {
            method: 'POST',
            headers: { 'idempotency-key': `upgrade-${n}-${i}` },
            body: JSON.stringify({ name: `Pet ${n}-${i}`, categoryId: 1 })
          })
          answers.push({ by, status: write.status })
          if (write.status === 201) created.push(String(((await write.json()) as { id: number | string }).id))
          else await write.arrayBuffer()
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
      const load = Promise.all([0, 1, 2, 3].map(worker))
      /** Resolves once `predicate` holds, checked every 20 ms; fails after 60 s (the load stopped making progress). */
      const until = (predicate: () => boolean, what: string) =>
        new Promise<void>((resolve, reject) => {
          const deadline = Date.now() + 60_000
          const check = setInterval(() => {
            if (predicate()) resolve()
            else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`))
            else return
            clearInterval(check)
          }, 20)
        })
      await until(() => created.length >= 20, '20 creates on the previous release')

      const now = await serve(t, env) // migrates at start, beside the previous release
      target = now
      const movedAt = created.length
      await until(() => created.length >= movedAt + 20, '20 creates on this build')
      old.child.kill('SIGTERM')
      assert.equal(await old.exited, 0, 'the previous release drained and exited 0')
      await until(() => created.length >= movedAt + 40, '20 more after the previous release stopped')
      stopped = true
      await load

      const failed = answers.filter((answer) => answer.status >= 500)
      assert.deepEqual(failed, [], 'no 5xx from either release')
      assert.ok(answers.some((a) => a.by === 'previous') && answers.some((a) => a.by === 'this build'), 'both served load')
      for (const id of created) assert.equal((await now.call(`/v1/pets/${id}`, busy.key)).status, 200, `created pet ${id} is readable`)
      assert.equal((await now.call('/v1/pets', free.key)).status, 200, 'a key of the previous release is accepted')
      assert.equal(
        ((await (await now.call('/v1/pets', banned.key)).json()) as { code: string }).code,
        'api_key_banned',
        'its ban carried over'
      )
      assert.match((await now.call('/v1/pets', free.key)).headers.get('ratelimit') ?? '', /"day";r=995;/, 'its day carried over')
      const admin = await now.admin('/admin/v1/keys?limit=1', token)
      assert.equal(admin.status, 200, 'an operator token of the previous release is accepted')
    }
  )
})
