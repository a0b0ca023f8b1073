import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { test, type TestContext } from 'node:test'
import { setImmediate as afterTurn } from 'node:timers/promises'
import { systemClock } from '../../src/base/clock.ts'
import { SqliteStorage } from '../../src/storage/sqlite/index.ts'
import { openStore as openBackendStore, sqliteBackend } from '../helpers/backends.ts'

// The embedded store reads pets on a second connection, in one read transaction per
// event-loop turn (storage/sqlite/turn-snapshot.ts). These tests pin down what a read sees.

/** A fresh, migrated store and the path of its file. */
async function openStore(t: TestContext) {
  const { storage, env } = await openBackendStore(t, sqliteBackend)
  return { storage, path: env.DATABASE_URL!.slice('sqlite:'.length) }
}

const newPet = { name: 'Rex', categoryId: 1, status: 'available' } as const

test("a pet is readable as soon as its create is answered, even when the turn's snapshot was taken before the commit", async (t) => {
  const { storage } = await openStore(t)
  // The create's commit is queued first, then a read takes this turn's snapshot: the commit
  // runs while that snapshot is open, and must end it.
  const creating = storage.pets.create(newPet)
  assert.equal(storage.pets.get(1), undefined)
  const created = await creating
  assert.deepEqual(storage.pets.get(created.id), created)
  assert.deepEqual(storage.pets.page({ status: undefined, afterId: undefined, limit: 10 }), [created])
})

test('a commit by another program is seen from the next turn on, and the snapshot does not outlive its turn', async (t) => {
  const { storage, path } = await openStore(t)
  const created = await storage.pets.create(newPet)
  const outside = new DatabaseSync(path, { timeout: 5000 })
  t.after(() => outside.close())

  assert.deepEqual(storage.pets.get(created.id), created)
  outside.exec(`INSERT INTO pets (name, category_id, status) VALUES ('Outside', 2, 'sold')`)
  assert.equal(storage.pets.get(2), undefined, 'the same turn still reads its snapshot')
  await afterTurn()
  assert.deepEqual(storage.pets.get(2), { id: 2, name: 'Outside', categoryId: 2, status: 'sold' })

  // Once the turn is over no read transaction is left open: a checkpoint can then take the whole WAL.
  await afterTurn()
  const [checkpoint] = outside.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all() as Array<{ busy: number }>
  assert.equal(checkpoint!.busy, 0)
})

test('an in-memory store reads on its only connection', async (t) => {
  const storage = new SqliteStorage(':memory:', systemClock)
  t.after(() => storage.close())
  await storage.migrate()
  const created = await storage.pets.create(newPet)
  assert.deepEqual(storage.pets.get(created.id), created)
})

test(
  'gets read the file through a memory map once its pages are checkpointed into it',
  { skip: !existsSync('/proc/self/maps') && 'needs /proc/self/maps' },
  async (t) => {
    const { storage, path } = await openStore(t)
    const created = await storage.pets.create(newPet)
    const outside = new DatabaseSync(path, { timeout: 5000 })
    t.after(() => outside.close())
    // Pages still in the WAL are read with read(); only the main file is mapped.
    outside.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    const mapped = () =>
      readFileSync('/proc/self/maps', 'utf8')
        .split('\n')
        .some((line) => line.endsWith(` ${path}`))
    assert.equal(mapped(), false)
    await afterTurn()
    assert.deepEqual(storage.pets.get(created.id), created)
    assert.equal(mapped(), true)
  }
)
