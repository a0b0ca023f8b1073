import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test } from 'node:test'
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations/list.ts'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { adminQuery, createSchema } from '../helpers/postgres.ts'
import { freePort, tempDir } from '../helpers/temp.ts'

const NEWEST = SQLITE_MIGRATIONS.length
const sqlite = (path: string) => ({ DATABASE_URL: `sqlite:${path}` })
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

interface Report {
  ok: boolean
  schemaVersion: number | null
  buildSchemaVersion: number
  problems: string[]
  notes: string[]
}

async function check(env: Record<string, string>): Promise<{ code: number | null; report: Report; stderr: string }> {
  const json = await runCli(['check', '--json'], env)
  const text = await runCli(['check'], env)
  assert.equal(text.code, json.code, 'check exits alike with and without --json')
  return { code: json.code, report: JSON.parse(json.stdout) as Report, stderr: text.stderr }
}

/** A migrated file with `pets` pets, copied by `backup`: one self-contained file, no -wal beside it. */
async function storeCopy(dir: string, pets: number): Promise<string> {
  const live = join(dir, 'live.db')
  assert.equal((await runCli(['migrate'], sqlite(live))).code, 0)
  const db = new DatabaseSync(live)
  db.exec('BEGIN')
  const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'sold')")
  for (let i = 0; i < pets; i++) insert.run(`pet ${i}`)
  db.exec('COMMIT')
  db.close()
  const copy = join(dir, 'copy.db')
  const made = await runCli(['backup', copy], sqlite(live))
  assert.equal(made.code, 0, made.stderr)
  return copy
}

describe('animal-store check', () => {
  test('a sound file: exit 0, the schema version, nothing changed or added beside it', async (t) => {
    const dir = tempDir(t)
    const copy = await storeCopy(dir, 500)
    const before = sha256(copy)
    const files = readdirSync(dir).sort()
    const { code, report } = await check(sqlite(copy))
    assert.equal(code, 0)
    assert.deepEqual(report, { ok: true, schemaVersion: NEWEST, buildSchemaVersion: NEWEST, problems: [], notes: [], pets: 500, keys: 0 })
    assert.equal(sha256(copy), before)
    assert.deepEqual(readdirSync(dir).sort(), files, 'no -wal, -shm or journal beside the copy')
  })

  test('a truncated file is refused with the reason, and left as it was', async (t) => {
    const dir = tempDir(t)
    const copy = await storeCopy(dir, 5000)
    const whole = readFileSync(copy)
    const cuts = { 'half.db': Math.floor(whole.length / 2 / 4096) * 4096, 'mid-page.db': whole.length - 100, 'header.db': 60 }
    for (const [name, length] of Object.entries(cuts)) {
      const path = join(dir, name)
      writeFileSync(path, whole)
      truncateSync(path, length)
      const before = sha256(path)
      const { code, report, stderr } = await check(sqlite(path))
      assert.equal(code, 1, name)
      assert.equal(report.ok, false)
      assert.match(report.problems[0]!, /the file is truncated/, name)
      assert.match(stderr, /animal-store check: the file is truncated/, name)
      assert.equal(sha256(path), before, `${name} is unchanged`)
    }
  })

  test('a file from a newer schema is refused by check, migrate and serve, each with one line, and left as it was', async (t) => {
    const dir = tempDir(t)
    const path = join(dir, 'newer.db')
    assert.equal((await runCli(['migrate'], sqlite(path))).code, 0)
    const db = new DatabaseSync(path)
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)').run(NEWEST + 3, 'from a newer release')
    db.close()
    const { code, report, stderr } = await check(sqlite(path))
    assert.equal(code, 1)
    assert.equal(report.schemaVersion, NEWEST + 3)
    const reason = `the database's schema is at version ${NEWEST + 3}, newer than this build's newest (${NEWEST})`
    assert.ok(report.problems[0]!.startsWith(reason), report.problems[0])
    assert.match(stderr, /newer than this build's newest/)
    for (const command of ['migrate', 'serve']) {
      const refused = await runCli([command], { ...sqlite(path), PORT: String(await freePort()) })
      assert.equal(refused.code, 1, command)
      assert.equal(refused.stderr.trim().split('\n').length, 1, `${command}: one line: ${refused.stderr}`)
      assert.ok(refused.stderr.startsWith(`animal-store: ${reason}`), refused.stderr)
    }
    const after = new DatabaseSync(path, { readOnly: true })
    const versions = after.prepare('SELECT version FROM schema_migrations ORDER BY version').all()
    after.close()
    assert.deepEqual(
      versions.map((row) => row.version),
      [...SQLITE_MIGRATIONS.map((m) => m.version), NEWEST + 3]
    )
  })

  test('an older schema is sound, with a note that serve migrates it first', async (t) => {
    const path = join(tempDir(t), 'older.db')
    const db = new DatabaseSync(path)
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT')
    for (const migration of SQLITE_MIGRATIONS.slice(0, 2)) {
      db.exec(migration.sql)
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name)
    }
    db.close()
    const { code, report } = await check(sqlite(path))
    assert.equal(code, 0)
    assert.equal(report.schemaVersion, 2)
    assert.deepEqual(report.problems, [])
    assert.match(report.notes[0]!, /older than this build's .*serve \(or migrate\) applies migrations? 3/)
    assert.equal((await runCli(['migrate'], sqlite(path))).code, 0)
    assert.equal((await check(sqlite(path))).report.schemaVersion, NEWEST)
  })

  test('a missing file, or one that is not SQLite, is a problem; nothing is created', async (t) => {
    const dir = tempDir(t)
    const missing = join(dir, 'no-such-folder', 'store.db')
    const absent = await check(sqlite(missing))
    assert.equal(absent.code, 1)
    assert.deepEqual(absent.report.problems, [`no database file at ${missing}`])
    assert.equal(existsSync(join(dir, 'no-such-folder')), false, 'check created nothing')
    const text = join(dir, 'notes.txt')
    writeFileSync(text, 'these are not the pets you are looking for\n'.repeat(10))
    const junk = await check(sqlite(text))
    assert.equal(junk.code, 1)
    assert.match(junk.report.problems[0]!, /not a SQLite database/)
    const unmigrated = join(dir, 'empty.db')
    writeFileSync(unmigrated, '')
    assert.match((await check(sqlite(unmigrated))).report.problems[0]!, /no migrations table/)
  })

  test('bad usage exits 2; --help explains', async () => {
    assert.equal((await runCli(['check', 'extra'], {})).code, 2)
    assert.equal((await runCli(['check', '--verbose'], {})).code, 2)
    for (const args of [
      ['check', '--help'],
      ['help', 'check']
    ]) {
      const help = await runCli(args, {})
      assert.equal(help.code, 0)
      assert.match(help.stdout, /^Usage: animal-store check \[--json\]/)
    }
  })
})

describe('animal-store check on PostgreSQL', async () => {
  const skip = await backendSkip(postgresBackend)

  test('never migrated, migrated, and from a newer schema', { skip }, async (t) => {
    const schema = await createSchema()
    t.after(() => schema.drop())
    const env = { DATABASE_URL: schema.url }
    const fresh = await check(env)
    assert.equal(fresh.code, 1)
    assert.match(fresh.report.problems[0]!, /has no migrations table .*never migrated/)
    assert.equal((await runCli(['migrate'], env)).code, 0)
    const migrated = await check(env)
    assert.equal(migrated.code, 0, JSON.stringify(migrated.report))
    assert.equal(migrated.report.schemaVersion, migrated.report.buildSchemaVersion)
    await adminQuery(`INSERT INTO ${schema.name}.schema_migrations (version, name) VALUES (99, 'from a newer release')`)
    const newer = await check(env)
    assert.equal(newer.code, 1)
    assert.match(newer.report.problems[0]!, /version 99, newer than this build's newest/)
    const refused = await runCli(['migrate'], env)
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /^animal-store: the database's schema is at version 99, newer/)
  })
})
