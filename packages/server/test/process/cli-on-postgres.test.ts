import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations/list.ts'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { adminQuery, createSchema } from '../helpers/postgres.ts'
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.ts'
import { freePort } from '../helpers/temp.ts'

const skip = await backendSkip(postgresBackend)

/** The environment an operator would export: a fresh, unmigrated schema and a Redis prefix of the test's own. */
async function postgresEnv(t: TestContext): Promise<Record<string, string>> {
  const schema = await createSchema()
  t.after(() => schema.drop())
  return { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
}

async function cliJson<T>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli(args, env)
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout) as T
}

describe('animal-store CLI on PostgreSQL', { skip }, () => {
  test('migrate: two at once apply each migration once; then the schema is up to date', async (t) => {
    const env = await postgresEnv(t)
    const [a, b] = await Promise.all([runCli(['migrate'], env), runCli(['migrate'], env)])
    assert.equal(a.code, 0, a.stderr)
    assert.equal(b.code, 0, b.stderr)
    assert.deepEqual([a.stdout, b.stdout].sort(), [`Applied ${POSTGRES_MIGRATIONS.length} migration(s).\n`, 'Schema is up to date.\n'])
    assert.equal((await runCli(['migrate'], env)).stdout, 'Schema is up to date.\n')
    assert.equal((await adminQuery('SELECT version FROM schema_migrations', [], env.DATABASE_URL)).length, POSTGRES_MIGRATIONS.length)
  })

  test('keys create, list, revoke and unban work exactly as on SQLite', async (t) => {
    const env = await postgresEnv(t)
    const created = await cliJson<Record<string, unknown>>(
      [
        'keys',
        'create',
        '--plan',
        'enterprise',
        '--per-minute',
        '5000',
        '--per-day',
        '50',
        '--name',
        'pg bot',
        '--expires-at',
        '2099-01-01T00:00:00.123Z',
        '--json'
      ],
      env
    )
    assert.match(String(created.key), /^as_live_[0-9A-Za-z]{43}$/)
    assert.deepEqual(created.limits, { perMinute: 5000, perDay: 50, perMonth: null })
    const free = await cliJson<{ id: string }>(['keys', 'create', '--plan', 'free', '--json'], env)

    const listed = await cliJson<Array<Record<string, unknown>>>(['keys', 'list', '--json'], env)
    assert.deepEqual(
      listed.map((k) => k.id),
      [created.id, free.id]
    )
    assert.equal(listed[0]!.name, 'pg bot')
    assert.equal(listed[0]!.createdAt, created.createdAt)
    assert.equal(listed[0]!.expiresAt, '2099-01-01T00:00:00.123Z')
    assert.ok(!JSON.stringify(listed).includes(String(created.key)), 'list never shows the secret')

    const revoked = await runCli(['keys', 'revoke', String(created.id)], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    const [after] = await cliJson<Array<Record<string, unknown>>>(['keys', 'list', '--json'], env)
    assert.match(String(after!.revokedAt), /^\d{4}-\d{2}-\d{2}T/)
    assert.equal((await runCli(['keys', 'unban', free.id], env)).code, 0)
    assert.match((await runCli(['keys', 'list'], env)).stdout, /ID\s+NAME\s+PLAN/)

    const missing = await runCli(['keys', 'revoke', 'key_doesnotexist000'], env)
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /no key has id/)
  })

  test('an unreachable database is one clear line and a non-zero exit', async () => {
    const env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/test`, DATABASE_CONNECT_TIMEOUT_MS: '1000' }
    for (const args of [['migrate'], ['keys', 'list']]) {
      const result = await runCli(args, env)
      assert.equal(result.code, 1, args.join(' '))
      assert.match(result.stderr, /^animal-store: PostgreSQL is unavailable: .*ECONNREFUSED/)
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
    }
  })
})
