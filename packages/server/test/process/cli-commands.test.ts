import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { runCli } from '../helpers/cli.ts'
import { tempDir } from '../helpers/temp.ts'

function sqliteEnv(dir: string): Record<string, string> {
  return { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}` }
}

async function listJson(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const result = await runCli(['keys', 'list', '--json'], env)
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout) as Array<Record<string, unknown>>
}

describe('animal-store CLI', () => {
  test('keys create --json prints one object with id and the key, shown once', async (t) => {
    const env = sqliteEnv(tempDir(t))
    const result = await runCli(['keys', 'create', '--plan', 'free', '--name', 'ci bot', '--json'], env)
    assert.equal(result.code, 0, result.stderr)
    const created = JSON.parse(result.stdout) as Record<string, unknown>
    assert.match(String(created.key), /^as_live_[0-9A-Za-z]{43}$/)
    assert.match(String(created.id), /^key_[0-9A-Za-z]{16}$/)
    assert.equal(created.plan, 'free')
    assert.equal(created.name, 'ci bot')
    assert.deepEqual(created.limits, { perMinute: 60, perDay: 1000, perMonth: null })
    const listed = await listJson(env)
    assert.equal(listed.length, 1)
    assert.equal(listed[0]!.id, created.id)
    assert.ok(!JSON.stringify(listed).includes(String(created.key)), 'list never shows the secret')
    assert.ok(!('key' in listed[0]!) && !('secretHash' in listed[0]!))
    const human = await runCli(['keys', 'list'], env)
    assert.match(human.stdout, /ID\s+NAME\s+PLAN/)
    assert.ok(human.stdout.includes(String(created.id)))
  })

  test('limits: enterprise needs both, overrides apply to any plan, a day below a minute is allowed', async (t) => {
    const env = sqliteEnv(tempDir(t))
    const enterprise = JSON.parse(
      (await runCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '5000', '--per-day', '50', '--json'], env)).stdout
    ) as Record<string, unknown>
    assert.deepEqual(enterprise.limits, { perMinute: 5000, perDay: 50, perMonth: null })
    const pro = JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--per-minute', '7', '--json'], env)).stdout) as Record<
      string,
      unknown
    >
    assert.deepEqual(pro.limits, { perMinute: 7, perDay: 10000, perMonth: null })
    const expiring = JSON.parse(
      (await runCli(['keys', 'create', '--plan', 'business', '--expires-at', '2099-01-01T00:00:00Z', '--json'], env)).stdout
    ) as Record<string, unknown>
    assert.equal(expiring.expiresAt, '2099-01-01T00:00:00.000Z')
  })

  test('invalid arguments exit non-zero with one clear line and create nothing', async (t) => {
    const env = sqliteEnv(tempDir(t))
    const cases: Array<[string[], RegExp]> = [
      [['keys', 'create'], /--plan/],
      [['keys', 'create', '--plan', 'gold'], /--plan must be one of business, enterprise, free, pro/],
      [['keys', 'create', '--plan', 'enterprise'], /--per-minute and --per-day/],
      [['keys', 'create', '--plan', 'enterprise', '--per-minute', '10'], /--per-minute and --per-day/],
      [['keys', 'create', '--plan', 'free', '--per-minute', '0'], /--per-minute must be a whole number/],
      [['keys', 'create', '--plan', 'free', '--per-day', '1.5'], /--per-day must be a whole number/],
      [['keys', 'create', '--plan', 'free', '--expires-at', '2001-01-01T00:00:00Z'], /--expires-at must be in the future/],
      [['keys', 'create', '--plan', 'free', '--expires-at', 'tomorrow'], /--expires-at must be an ISO 8601/],
      [['keys', 'create', '--plan', 'free', '--expires-at', '2099-02-30T00:00:00Z'], /--expires-at names no real date and time/],
      [['keys', 'create', '--plan', 'free', '--per-minute', '99999999999999999999'], /--per-minute must be at most 9007199254740991/],
      [['keys', 'create', '--plan', 'free', '--colour', 'red'], /Unknown option '--colour'/],
      [['keys', 'create', '--plan', 'free', 'extra'], /no positional arguments/],
      [['keys', 'list', '--plan', 'free'], /does not take --plan/],
      [['keys', 'revoke'], /exactly one key id/],
      [['keys', 'revoke', 'key_doesnotexist000'], /no key has id/],
      [['keys', 'unban', 'key_doesnotexist000'], /no key has id/],
      [['keys', 'rotate'], /exactly one key id/],
      [['keys', 'frobnicate'], /unknown keys command/],
      [['frobnicate'], /unknown command/],
      [['serve', 'now'], /takes no arguments/]
    ]
    for (const [args, message] of cases) {
      const result = await runCli(args, env)
      assert.notEqual(result.code, 0, `${args.join(' ')} should fail`)
      assert.match(result.stderr, message, args.join(' '))
      assert.equal(result.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${result.stderr}`)
    }
    assert.deepEqual(await listJson(env), [])
  })

  test('revoke and unban', async (t) => {
    const env = sqliteEnv(tempDir(t))
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--json'], env)).stdout) as { id: string }
    const revoked = await runCli(['keys', 'revoke', created.id], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    const again = await runCli(['keys', 'revoke', created.id], env)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /was already revoked at \d{4}-/)
    const [listed] = await listJson(env)
    assert.match(String(listed!.revokedAt), /^\d{4}-\d{2}-\d{2}T/)
    assert.equal((await runCli(['keys', 'unban', created.id], env)).code, 0)
    assert.equal((await listJson(env))[0]!.bannedUntil, null)
  })

  test('migrate applies once, then reports the schema up to date', async (t) => {
    const env = sqliteEnv(tempDir(t))
    const first = await runCli(['migrate'], env)
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /Applied \d+ migration/)
    const second = await runCli(['migrate'], env)
    assert.match(second.stdout, /up to date/)
  })

  test('a bad environment stops start-up with one clear line', async (t) => {
    const dir = tempDir(t)
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: '99999' }, /PORT="99999" is invalid/],
      [{ PORT: 'eighty' }, /PORT="eighty" is invalid/],
      [{ DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL has an unknown scheme/],
      [{ DATABASE_URL: 'sqlite:' }, /needs a file path/],
      [{ PUBLIC_BASE_URL: 'not a url' }, /PUBLIC_BASE_URL="not a url" is not a valid URL/],
      [{ REDIS_URL: 'http://localhost' }, /REDIS_URL must be a redis:\/\//],
      [
        { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001' },
        /REDIS_URL and REDIS_CLUSTER_NODES are both set/
      ],
      [{ REDIS_CLUSTER_NODES: '127.0.0.1:7000,localhost' }, /REDIS_CLUSTER_NODES must be host:port,host:port,... \(got "localhost"\)/],
      [{ REDIS_CLUSTER_NODES: '127.0.0.1:70000' }, /REDIS_CLUSTER_NODES must be host:port/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud" is invalid/]
    ]
    for (const [env, message] of cases) {
      const result = await runCli(['serve'], { ...sqliteEnv(dir), LOG_LEVEL: 'info', ...env })
      assert.equal(result.code, 1, JSON.stringify(env))
      assert.match(result.stderr, message)
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
    }
  })

  test('--help explains the commands', async () => {
    const result = await runCli(['--help'], {})
    assert.equal(result.code, 0)
    for (const word of ['serve', 'migrate', 'keys', 'create', 'revoke', 'unban', 'DATABASE_URL'])
      assert.ok(result.stdout.includes(word), word)
    for (const args of [
      ['serve', '--help'],
      ['migrate', '--help'],
      ['openapi', '-h'],
      ['keys', '--help'],
      ['keys', 'create', '--help']
    ]) {
      const help = await runCli(args, {})
      assert.equal(help.code, 0, args.join(' '))
      assert.match(help.stdout, /Usage: animal-store/, args.join(' '))
    }
  })
})
