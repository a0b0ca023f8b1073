import assert from 'node:assert/strict'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test, type TestContext } from 'node:test'
import { runCli, startServe } from '../helpers/cli.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

/** Pets written into the file before serve starts, so the copy takes a while to make and check. */
const PREFILLED_PETS = 200_000

function prefill(path: string): void {
  const db = new DatabaseSync(path)
  db.exec('BEGIN')
  const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, 'available')")
  for (let i = 0; i < PREFILLED_PETS; i++) insert.run(`prefilled ${i}`, i + 1)
  db.exec('COMMIT')
  db.close()
}

/** The tables, indexes and their SQL: what a copy must hold whatever migrations added. */
function schemaOf(path: string): unknown[] {
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    return db
      .prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name')
      .all()
      .map((row) => ({ ...row }))
  } finally {
    db.close()
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

function describeLatency(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b)
  const ms = (value: number) => value.toFixed(1)
  return `n=${sorted.length} p50=${ms(quantile(sorted, 0.5))} ms p99=${ms(quantile(sorted, 0.99))} ms max=${ms(sorted.at(-1) ?? NaN)} ms`
}

async function keysUsage(env: Record<string, string>, id: string): Promise<number> {
  const usage = await runCli(['keys', 'usage', id, '--json'], env)
  assert.equal(usage.code, 0, usage.stderr)
  const day = (JSON.parse(usage.stdout) as { limits: Array<{ window: string; limit: number; remaining: number }> }).limits.find(
    (limit) => limit.window === 'day'
  )!
  return day.limit - day.remaining
}

async function createKey(env: Record<string, string>): Promise<{ id: string; key: string }> {
  const created = await runCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '1000000', '--json'], env)
  assert.equal(created.code, 0, created.stderr)
  return JSON.parse(created.stdout) as { id: string; key: string }
}

async function startOn(t: TestContext, path: string) {
  const port = await freePort()
  const env = { DATABASE_URL: `sqlite:${path}`, PORT: String(port) }
  const served = await startServe(env, `http://127.0.0.1:${port}`)
  t.after(() => served.child.kill('SIGKILL'))
  return { ...served, env, origin: `http://127.0.0.1:${port}` }
}

describe('online backup and restore (embedded SQLite)', () => {
  test('backup while creates stream in: the copy passes check and restores every create acknowledged before it began', async (t) => {
    const dir = tempDir(t)
    const source = join(dir, 'store.db')
    const setup = { DATABASE_URL: `sqlite:${source}` }
    assert.equal((await runCli(['migrate'], setup)).code, 0)
    prefill(source)
    const { id: keyId, key } = await createKey(setup)
    const served = await startOn(t, source)
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const post = (body: object, extra: Record<string, string> = {}) =>
      fetch(`${served.origin}/v1/pets`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) })

    const replayed = { name: 'idempotent', categoryId: 7 }
    const first = await post(replayed, { 'idempotency-key': 'before-the-backup' })
    assert.equal(first.status, 201)
    const firstPet = (await first.json()) as Pet

    // Creates stream in from four clients; a fifth, keyed, measures the serving process's latency.
    const acknowledged: Array<{ pet: Pet; at: number }> = [{ pet: firstPet, at: performance.now() }]
    const latency: Array<{ start: number; ms: number }> = []
    let streaming = true
    let n = 0
    const writer = async () => {
      while (streaming) {
        const i = n++
        const response = await post({ name: `streamed ${i}`, categoryId: 9007199254740000 + i, status: 'pending' })
        assert.equal(response.status, 201)
        acknowledged.push({ pet: (await response.json()) as Pet, at: performance.now() })
      }
    }
    const prober = async () => {
      while (streaming) {
        const start = performance.now()
        const response = await fetch(`${served.origin}/v1/pets?limit=10&status=pending`, { headers })
        await response.arrayBuffer()
        assert.equal(response.status, 200)
        latency.push({ start, ms: performance.now() - start })
      }
    }
    // Handled now, awaited once the backup is done: a failed request fails the test then.
    const clients = Promise.all([writer(), writer(), writer(), writer(), prober()])
    clients.catch(() => {})
    await until(() => acknowledged.length >= 300, { timeoutMs: 30_000, what: '300 creates acknowledged' })
    // The counters reach the file about every second: wait until they did, so the copy holds them.
    await until(async () => (await keysUsage(setup, keyId)) > 0, { timeoutMs: 10_000, intervalMs: 200, what: 'usage flushed' })

    const began = performance.now()
    const before = acknowledged.filter((ack) => ack.at < began).map((ack) => ack.pet)
    const copyPath = join(dir, 'copies', 'store-copy.db')
    mkdirSync(join(dir, 'copies'))
    const result = await runCli(['backup', copyPath, '--json'], setup)
    const ended = performance.now()
    streaming = false
    await clients
    assert.equal(result.code, 0, result.stderr)

    const during = acknowledged.filter((ack) => ack.at >= began && ack.at <= ended).length
    assert.ok(during > 0, 'creates were acknowledged while the backup ran')
    const baseline = latency.filter((sample) => sample.start < began).slice(-500)
    const whileCopying = latency.filter((sample) => sample.start >= began && sample.start <= ended)
    t.diagnostic(`backup took ${(ended - began).toFixed(0)} ms (CLI start included); ${during} creates acknowledged meanwhile`)
    t.diagnostic(`serving latency, keyed GET /v1/pets?limit=10, before the backup: ${describeLatency(baseline.map((s) => s.ms))}`)
    t.diagnostic(`serving latency, keyed GET /v1/pets?limit=10, during the backup: ${describeLatency(whileCopying.map((s) => s.ms))}`)

    const copy = JSON.parse(result.stdout) as { path: string; bytes: number; schemaVersion: number; pets: number; keys: number }
    assert.equal(copy.path, copyPath)
    assert.equal(copy.bytes, statSync(copyPath).size)
    assert.equal(copy.keys, 1)
    assert.ok(copy.pets >= PREFILLED_PETS + before.length, `${copy.pets} pets in the copy`)
    assert.ok(copy.schemaVersion >= 4)

    served.child.kill('SIGTERM')
    assert.equal(await served.exited, 0)
    assert.deepEqual(schemaOf(copyPath), schemaOf(source), 'the copy holds every table and index of the source')

    // Restore: check the copy, move it into place, serve it.
    const checked = await runCli(['check', '--json'], { DATABASE_URL: `sqlite:${copyPath}` })
    assert.equal(checked.code, 0, checked.stdout)
    assert.deepEqual(JSON.parse(checked.stdout), {
      ok: true,
      schemaVersion: copy.schemaVersion,
      buildSchemaVersion: copy.schemaVersion,
      problems: [],
      notes: [],
      pets: copy.pets,
      keys: 1
    })
    const restoredPath = join(tempDir(t), 'store.db')
    copyFileSync(copyPath, restoredPath)
    assert.ok((await keysUsage({ DATABASE_URL: `sqlite:${restoredPath}` }, keyId)) > 0, 'the rate-limit counters were copied')
    const restored = await startOn(t, restoredPath)
    for (const pet of before) {
      const response = await fetch(`${restored.origin}/v1/pets/${pet.id}`, { headers })
      assert.equal(response.status, 200, `acknowledged pet ${pet.id} was restored`)
      assert.deepEqual(await response.json(), pet)
    }
    const replay = await fetch(`${restored.origin}/v1/pets`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'before-the-backup' },
      body: JSON.stringify(replayed)
    })
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'the idempotency record was copied')
    assert.deepEqual(await replay.json(), firstPet)
    restored.child.kill('SIGTERM')
    assert.equal(await restored.exited, 0)
  })
})

describe('animal-store backup refuses', () => {
  test('an existing <file>, a missing folder, bad usage: exit 2, nothing written', async (t) => {
    const dir = tempDir(t)
    const env = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}` }
    assert.equal((await runCli(['migrate'], env)).code, 0)
    const existing = join(dir, 'existing.db')
    writeFileSync(existing, 'keep me')
    const cases: Array<[string[], RegExp]> = [
      [['backup', existing], /existing\.db exists: refusing to replace it/],
      [['backup', join(dir, 'nope', 'copy.db')], /the folder .*nope does not exist/],
      [['backup'], /backup needs <file>/],
      [['backup', join(dir, 'a.db'), join(dir, 'b.db')], /backup takes only file/],
      [['backup', join(dir, 'a.db'), '--fast'], /Unknown option '--fast'/]
    ]
    for (const [args, message] of cases) {
      const refused = await runCli(args, env)
      assert.equal(refused.code, 2, args.join(' '))
      assert.match(refused.stderr, message)
    }
    assert.equal(readFileSync(existing, 'utf8'), 'keep me')
    assert.deepEqual(
      readdirSync(dir).filter((name) => !name.startsWith('store.db')),
      ['existing.db'],
      'no copy, no temporary file'
    )
  })

  test('on PostgreSQL, with one line naming pg_dump', async (t) => {
    const target = join(tempDir(t), 'copy.db')
    const refused = await runCli(['backup', target], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' })
    assert.equal(refused.code, 2)
    assert.equal(refused.stderr.trim().split('\n').length, 1)
    assert.match(refused.stderr, /on PostgreSQL use pg_dump/)
    assert.equal(existsSync(target), false)
  })

  test('--help and help backup explain it', async () => {
    for (const args of [
      ['backup', '--help'],
      ['help', 'backup']
    ]) {
      const help = await runCli(args, {})
      assert.equal(help.code, 0)
      assert.match(help.stdout, /^Usage: animal-store backup <file> \[--json\]/)
    }
  })
})
