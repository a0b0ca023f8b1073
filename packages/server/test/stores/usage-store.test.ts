import assert from 'node:assert/strict'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test, type TestContext } from 'node:test'
import { GRANULARITIES, GRANULARITY_MS, type Granularity } from '@animal-store/contract'
import { UsageBuffer, type UsageOutcome } from '../../src/domain/usage/recorder.ts'
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations/list.ts'
import { SqliteUsage } from '../../src/storage/sqlite/usage.ts'
import type { Storage } from '../../src/storage/types.ts'
import type { UsageCounts, UsageDelta, UsageRow, UsageStore } from '../../src/storage/usage/types.ts'
import { openStorage, openStore, suiteBackends, type Backend } from '../helpers/backends.ts'
import { tempDir } from '../helpers/temp.ts'

const MINUTE = 60_000
const NOW = Date.parse('2026-06-15T12:00:10Z')
/** Every bucket ever: a span that reads all rows of a granularity. */
const ALL = { from: 0, to: Date.parse('2100-01-01T00:00:00Z') }
const OUTCOMES: UsageOutcome[] = ['allowed', 'rateLimited', 'banned', 'quotaExceeded']

/** A buffer whose failed flushes fail the test. */
function buffer(store: Pick<UsageStore, 'add'>): UsageBuffer {
  return new UsageBuffer(store, { failed: (error) => assert.fail(`a flush failed: ${String(error)}`) })
}

/** A deterministic stream of small numbers (a linear congruential generator). */
function numbers(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state % 7
  }
}

/** Rows of one granularity, by `key bucket-start`, for comparing sums. */
function add(into: Map<string, UsageCounts>, id: string, counts: UsageCounts): void {
  const held = into.get(id) ?? { allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 }
  held.allowed += counts.allowed
  held.rateLimited += counts.rateLimited
  held.banned += counts.banned
  held.quotaExceeded += counts.quotaExceeded
  into.set(id, held)
}

async function keyRows(store: UsageStore, keyId: string, granularity: Granularity): Promise<UsageRow[]> {
  return store.keyBuckets(keyId, { granularity, ...ALL })
}

const starts = (rows: UsageRow[]) => rows.map((row) => new Date(row.start).toISOString())

async function twoInstances(t: TestContext, backend: Backend): Promise<[Storage, Storage]> {
  const { storage, env } = await openStore(t, backend)
  return [storage, await openStorage(t, env)]
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`usage store [${backend.name}]`, { skip }, () => {
    test('two instances on one database each add their own counts: the sums are exact, nothing overwritten', async (t) => {
      const [first, second] = await twoInstances(t, backend)
      const instances = [buffer(first.usage), buffer(second.usage)]
      const expected = new Map<string, UsageCounts>()
      const next = numbers(7)
      // Rounds 40 s apart from 23:58: minutes, an hour and a day change under the instances.
      const start = Date.parse('2026-06-15T23:58:00Z')
      for (let round = 0; round < 8; round++) {
        const now = start + round * 40_000
        for (const instance of instances) {
          for (const keyId of ['key_A', 'key_b']) {
            for (const outcome of OUTCOMES) {
              const n = next()
              for (let i = 0; i < n; i++) instance.count(keyId, outcome, now + i)
              add(expected, `${keyId} ${now - (now % MINUTE)}`, { allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0, [outcome]: n })
            }
          }
        }
        await Promise.all(instances.map((instance) => instance.flush()))
      }
      for (const keyId of ['key_A', 'key_b']) {
        const stored = await keyRows(first.usage, keyId, 'minute')
        const wanted = [...expected].filter(
          ([id, c]) => id.startsWith(`${keyId} `) && c.allowed + c.rateLimited + c.banned + c.quotaExceeded > 0
        )
        assert.deepEqual(
          stored,
          wanted.map(([id, counts]) => ({ start: Number(id.split(' ')[1]), ...counts }))
        )
      }
      const lastMinute = start + 7 * 40_000 - ((start + 7 * 40_000) % MINUTE)
      assert.deepEqual(
        await second.usage.lastUsed(['key_A', 'key_b', 'key_never']),
        new Map([
          ['key_A', lastMinute],
          ['key_b', lastMinute]
        ])
      )
    })

    test('each hour and day holds the sum of its minutes, every outcome, the current ones too; totals the sum over keys', async (t) => {
      const { storage } = await openStore(t, backend)
      const store = storage.usage
      const next = numbers(11)
      const keys = ['key_1', 'key_2', 'key_3']
      const first = Date.parse('2026-06-15T22:50:00Z')
      // Several flushes, one of which repeats a key and minute.
      for (let batch = 0; batch < 4; batch++) {
        const deltas: UsageDelta[] = []
        for (let minute = 0; minute < 140; minute += 1 + next()) {
          for (const keyId of keys) {
            const counts = { allowed: next(), rateLimited: next(), banned: next(), quotaExceeded: next() }
            deltas.push({ keyId, minuteStart: first + minute * MINUTE, ...counts })
          }
        }
        deltas.push({ ...deltas[0]! })
        await store.add(deltas)
      }
      const totals = new Map<Granularity, Map<string, UsageCounts>>(GRANULARITIES.map((g) => [g, new Map()]))
      for (const keyId of keys) {
        const minutes = await keyRows(store, keyId, 'minute')
        assert.ok(minutes.length > 50)
        for (const granularity of GRANULARITIES) {
          const summed = new Map<string, UsageCounts>()
          for (const row of minutes) {
            const start = row.start - (row.start % GRANULARITY_MS[granularity])
            add(summed, String(start), row)
            add(totals.get(granularity)!, String(start), row)
          }
          const stored = await keyRows(store, keyId, granularity)
          assert.deepEqual(
            stored,
            [...summed].map(([start, counts]) => ({ start: Number(start), ...counts })),
            `${keyId} by ${granularity}`
          )
        }
      }
      for (const granularity of GRANULARITIES) {
        assert.deepEqual(
          await store.totalBuckets({ granularity, ...ALL }),
          [...totals.get(granularity)!].map(([start, counts]) => ({ start: Number(start), ...counts })),
          `totals by ${granularity}`
        )
      }
      assert.deepEqual(starts(await keyRows(store, 'key_1', 'day')), ['2026-06-15T00:00:00.000Z', '2026-06-16T00:00:00.000Z'])
    })

    test('a failed flush keeps its counts for the next one, which stores each exactly once', async (t) => {
      const { storage } = await openStore(t, backend)
      const failures: unknown[] = []
      let failNext = true
      const flaky = {
        add: (deltas: readonly UsageDelta[]) => {
          if (!failNext) return storage.usage.add(deltas)
          failNext = false
          return Promise.reject(new Error('disk full'))
        }
      }
      const recorder = new UsageBuffer(flaky, { failed: (error) => failures.push(error) })
      recorder.count('key_x', 'allowed', NOW)
      recorder.count('key_x', 'banned', NOW - MINUTE)
      recorder.count('key_x', 'quotaExceeded', NOW - MINUTE)
      await recorder.flush()
      assert.equal(failures.length, 1, 'the failure was reported, the flush did not reject')
      recorder.count('key_x', 'allowed', NOW + 1)
      recorder.count('key_x', 'rateLimited', NOW + MINUTE)
      await recorder.flush()
      await recorder.flush()
      const minute = NOW - (NOW % MINUTE)
      assert.deepEqual(await keyRows(storage.usage, 'key_x', 'minute'), [
        { start: minute - MINUTE, allowed: 0, rateLimited: 0, banned: 1, quotaExceeded: 1 },
        { start: minute, allowed: 2, rateLimited: 0, banned: 0, quotaExceeded: 0 },
        { start: minute + MINUTE, allowed: 0, rateLimited: 1, banned: 0, quotaExceeded: 0 }
      ])
      assert.equal(failures.length, 1)
    })
  })
}

test('embedded: flushes and prunes commit without fsync and leave the shared connection at synchronous=FULL for creates', async (t) => {
  const db = new DatabaseSync(join(tempDir(t), 'usage.db'))
  t.after(() => db.close())
  // Every migration: the store prepares its statements at once, a customer's usage over api_keys.customer_id (9).
  for (const migration of SQLITE_MIGRATIONS) db.exec(migration.sql)
  db.exec('PRAGMA synchronous = FULL')
  const synchronous = () => (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous
  const store = new SqliteUsage(db)
  await store.add([{ keyId: 'key_k', minuteStart: 0, allowed: 1, rateLimited: 0, banned: 0, quotaExceeded: 0 }])
  assert.equal(synchronous(), 2, 'FULL again after the flush')
  assert.equal(await store.prune('minute', MINUTE, 10), 2)
  assert.equal(synchronous(), 2, 'FULL again after the prune')
  await assert.rejects(store.add([{ keyId: 'key_k', minuteStart: 0, allowed: Number.NaN, rateLimited: 0, banned: 0, quotaExceeded: 0 }]))
  assert.equal(synchronous(), 2, 'FULL again after a failed flush')
  assert.equal(db.isTransaction, false, 'the failed flush was rolled back')
})
