import assert from 'node:assert/strict'
import { existsSync, statSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { ManualClock } from '../../src/base/clock.ts'
import { MemoryCounterStore } from '../../src/limits/memory/counter-store.ts'
import { PersistedCounterStore } from '../../src/limits/persisted.ts'
import type { ConsumeRequest } from '../../src/limits/types.ts'
import { SqliteStorage } from '../../src/storage/sqlite/index.ts'
import { startApp, type TestApp } from '../helpers/app.ts'
import { defer, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const T0 = Date.parse('2026-06-15T12:00:10Z')
const NEXT_DAY = Date.parse('2026-06-16T00:00:05Z')

const request = (subject: string, now = T0): ConsumeRequest => ({
  subject,
  limits: { perMinute: 60, perDay: 1000, perMonth: null },
  now,
  banThreshold: subject.startsWith('key:') ? 60 : null,
  banMs: 900_000
})

const used = async (store: MemoryCounterStore | PersistedCounterStore, subject: string, now = T0) =>
  (await store.usage(subject, now)).minuteUsed

/** The counters' rows in the file, read by another connection as an operator would. */
function fileRows(path: string): { addresses: number; keys: number } {
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    const count = (like: string) =>
      (db.prepare('SELECT count(*) AS n FROM rate_limit_counters WHERE subject LIKE ?').get(like) as { n: number }).n
    return { addresses: count('ip:%'), keys: count('key:%') }
  } finally {
    db.close()
  }
}

async function persisted(t: TestContext, path: string, clock: ManualClock, maxAddresses: number): Promise<PersistedCounterStore> {
  const storage = new SqliteStorage(path, clock)
  defer(t, () => storage.close())
  await storage.migrate()
  const store = new PersistedCounterStore(() => storage.counters, clock, { maxAddresses, onError: (error) => assert.fail(String(error)) })
  defer(t, () => store.close())
  return store
}

describe('bounded per-address state', () => {
  test('memory keeps at most maxAddresses addresses, the least recently seen forgotten first; keys are not capped', async () => {
    const store = new MemoryCounterStore({ maxAddresses: 3 })
    for (const subject of ['ip:a', 'ip:b', 'ip:c', 'ip:a', 'ip:d']) store.consume(request(subject))
    assert.equal(store.addressCount, 3)
    assert.equal(await used(store, 'ip:b'), 0, 'b, least recently seen, was forgotten')
    assert.equal(await used(store, 'ip:a'), 2, 'a was seen again, so kept')
    assert.equal(await used(store, 'ip:c'), 1)
    store.consume(request('ip:b'))
    assert.equal(await used(store, 'ip:b'), 1, 'a forgotten address starts a fresh window')
    assert.equal(await used(store, 'ip:c'), 0, 'c was then the least recently seen')
    for (let i = 0; i < 50; i++) store.consume(request(`key:${i}`))
    assert.equal(store.addressCount, 3)
    assert.equal(await used(store, 'key:0'), 1, 'keys are bounded by the keys issued, never evicted')
  })

  test('the file holds no more addresses than memory, and forgets them as memory does', async (t) => {
    const path = join(tempDir(t), 'counters.db')
    const clock = new ManualClock(T0)
    const store = await persisted(t, path, clock, 100)
    for (let i = 0; i < 1000; i++) store.consume(request(`ip:198.51.${i >> 8}.${i & 255}`))
    store.consume(request('key:k'))
    await store.close()
    assert.deepEqual(fileRows(path), { addresses: 100, keys: 1 })
    const reopened = await persisted(t, path, clock, 100)
    assert.equal(await used(reopened, 'ip:198.51.3.231'), 1, 'the most recent addresses survive a restart')
    assert.equal(await used(reopened, 'ip:198.51.0.0'), 0)
  })

  test('an address forgotten and seen again between two flushes keeps its row, however many rows the flush writes', async (t) => {
    const path = join(tempDir(t), 'counters.db')
    const clock = new ManualClock(T0)
    const store = await persisted(t, path, clock, 600)
    const has = (subject: string) => {
      const db = new DatabaseSync(path, { readOnly: true })
      try {
        return db.prepare('SELECT 1 FROM rate_limit_counters WHERE subject = ?').get(subject) !== undefined
      } finally {
        db.close()
      }
    }
    const old = (i: number) => `ip:198.51.${i >> 8}.${i & 255}`
    const fresh = (i: number) => `ip:203.0.${i >> 8}.${i & 255}`
    for (let i = 0; i < 600; i++) store.consume(request(old(i)))
    await until(() => has(old(599)), { timeoutMs: 5000, what: 'the first flush' })
    // old(0), seen again, is the last of the 600 old addresses a flood of 600 new ones forgets:
    // its delete comes after the first 500-row chunk of the next flush. Seen once more, it
    // takes the row of fresh(0), written in that first chunk.
    store.consume(request(old(0)))
    for (let i = 0; i < 600; i++) store.consume(request(fresh(i)))
    store.consume(request(old(0)))
    // The second flush deletes all 600 old rows, then writes 600: done when 600 are back.
    await until(() => has(fresh(599)) && fileRows(path).addresses === 600, { timeoutMs: 5000, what: 'the second flush' })
    assert.ok(has(old(0)), 'the address seen again is in the file')
    assert.ok(!has(fresh(0)), 'the address it displaced is not')
    assert.equal(await used(store, old(0)), 1, 'in memory it started afresh')
  })

  test('rows of ended windows are deleted, for keys and addresses alike; bans stay', async (t) => {
    const path = join(tempDir(t), 'counters.db')
    const clock = new ManualClock(T0)
    const store = await persisted(t, path, clock, 100)
    for (const subject of ['ip:192.0.2.1', 'ip:192.0.2.2', 'key:old', 'key:banned']) store.consume(request(subject))
    // 60 allowed, 60 refused, then a ban of two days.
    for (let i = 0; i < 121; i++) store.consume({ ...request('key:banned'), banMs: 2 * 86_400_000 })
    await store.close()
    assert.deepEqual(fileRows(path), { addresses: 2, keys: 2 })

    // A running server: the day ends, new traffic arrives, the next flush deletes what ended.
    const running = await persisted(t, path, clock, 100)
    assert.equal(await used(running, 'ip:192.0.2.1'), 1)
    clock.set(NEXT_DAY)
    running.consume(request('ip:192.0.2.3', NEXT_DAY))
    await running.close()
    assert.deepEqual(fileRows(path), { addresses: 1, keys: 1 }, 'the banned key stays until its ban ends')

    // A server that starts after the day ended deletes the rows at start-up.
    const later = new ManualClock(NEXT_DAY + 86_400_000)
    const restarted = await persisted(t, path, later, 100)
    assert.equal(await used(restarted, 'ip:192.0.2.3', later.now()), 0)
    await restarted.close()
    assert.deepEqual(fileRows(path), { addresses: 0, keys: 1 }, 'only the ban is left')
  })
})

/** Keyless requests from `count` distinct addresses (through a trusted proxy), 16 at a time; their statuses. */
async function flood(app: TestApp, from: number, count: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>()
  let next = from
  const worker = async () => {
    while (next < from + count) {
      const i = next++
      const response = await app.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': floodAddress(i) } })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return statuses
}

const fileBytes = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/** Bytes the heap and array buffers (where the address table keeps its typed arrays) hold after full collections. */
const memoryAfterCollection = (): number => {
  collectGarbage()
  collectGarbage()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

const CAP = 1000
const BATCH = 25_000
const floodAddress = (i: number) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`

describe('a flood of new addresses', () => {
  test('memory and the database stay flat once RATE_LIMIT_MAX_ADDRESSES is reached', async (t) => {
    const app = await startApp(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_MAX_ADDRESSES: String(CAP) } })
    const path = app.backendEnv.DATABASE_URL!.slice('sqlite:'.length)
    const flushed = (i: number) => {
      const db = new DatabaseSync(path, { readOnly: true })
      try {
        return db.prepare('SELECT 1 FROM rate_limit_counters WHERE subject = ?').get(`ip:${floodAddress(i)}`) !== undefined
      } finally {
        db.close()
      }
    }
    assert.deepEqual([...(await flood(app, 0, 2000))], [[401, 2000]], 'each new address has a fresh window')
    await until(() => flushed(1999), { timeoutMs: 5000, what: 'the HTTP flood to reach the file' })

    // Then batches of new addresses through the limiter the API guard calls (HTTP would take
    // minutes), each written by a flush before the next, as a flood of ~25,000 new addresses a
    // second would be. Two batches first: the table, and both lists of forgotten subjects the
    // flushes take in turn, reach their size; four more must then add nothing.
    let next = 2000
    const batch = async () => {
      for (const end = next + BATCH; next < end; next++)
        assert.equal(app.services.limiter.check(floodAddress(next)) instanceof Promise, false)
      await until(() => flushed(next - 1), { timeoutMs: 10_000, what: `the addresses up to ${next} to reach the file` })
    }
    for (let i = 0; i < 2; i++) await batch()
    const memory = memoryAfterCollection()
    const bytes = fileBytes(path)
    for (let i = 0; i < 4; i++) await batch()
    const memoryGrowth = memoryAfterCollection() - memory
    const byteGrowth = fileBytes(path) - bytes
    const wal = fileBytes(`${path}-wal`)
    t.diagnostic(
      `${4 * BATCH} more addresses: heap and buffers ${(memoryGrowth / 1024).toFixed(0)} KB, file ${(byteGrowth / 1024).toFixed(0)} KB, WAL ${wal} bytes`
    )
    // Held without a cap, 100,000 more addresses cost ~14 MB in the address table (~144 bytes
    // each) and ~17 MB in a Map of row objects (~171 bytes each); held to the cap, nothing.
    assert.ok(memoryGrowth < 4 * 1024 * 1024, `heap and buffers grew ${memoryGrowth} bytes over ${4 * BATCH} new addresses`)
    assert.equal(fileRows(path).addresses, CAP, 'the file holds the cap, no more')
    assert.ok(byteGrowth <= 64 * 1024, `the file grew ${byteGrowth} bytes`)
    // The WAL is reused from its start after each automatic checkpoint (1000 pages).
    assert.ok(wal < 6 * 1024 * 1024, `the WAL holds ${wal} bytes`)
    assert.equal((await app.fetch('/healthz', { key: null })).status, 200)
  })
})
