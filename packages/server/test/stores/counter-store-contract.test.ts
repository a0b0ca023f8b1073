import assert from 'node:assert/strict'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { after, describe, test, type TestContext } from 'node:test'
import { ManualClock } from '../../src/base/clock.ts'
import { FallbackCounterStore } from '../../src/limits/fallback.ts'
import { MemoryCounterStore } from '../../src/limits/memory/counter-store.ts'
import { CounterFileReader, PersistedCounterStore } from '../../src/limits/persisted.ts'
import { RedisCounterStore } from '../../src/limits/redis/counter-store.ts'
import type { ConsumeRequest, CounterStore } from '../../src/limits/types.ts'
import { SqliteStorage } from '../../src/storage/sqlite/index.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from '../helpers/redis.ts'
import { redisClusterSkip, startRedisCluster } from '../helpers/redis-cluster.ts'
import { defer, freePort, tempDir } from '../helpers/temp.ts'

// One contract for every counter store (limits/types.ts), as the storage suites run over every
// database: each store must decide every consume exactly as the contract says.

const T0 = Date.parse('2026-06-15T12:00:10Z')
const MINUTE = 60_000
const DAY = 86_400_000
const BAN_MS = 900_000

interface StoreFactory {
  name: string
  skip: string | false
  open(t: TestContext): Promise<CounterStore>
}

const redisReason = await redisUnavailable()
if (redisReason !== undefined && process.env.CI === 'true') throw new Error(`Redis must be reachable under CI=true: ${redisReason}`)
if (redisReason !== undefined) process.stderr.write(`\n!!! SKIPPING the Redis counter stores: ${redisReason}\n\n`)

async function openRedis(t: TestContext, url = TEST_REDIS_URL): Promise<RedisCounterStore> {
  const store = new RedisCounterStore({ url, keyPrefix: redisPrefix(t) })
  defer(t, () => store.close())
  await store.whenReady(url === TEST_REDIS_URL ? 3000 : 50)
  return store
}

const quietEvents = { degraded: () => {}, recovered: () => {} }

// One throwaway 3-node cluster for the file; each test keeps to a key prefix of its own.
const clusterSkip = redisClusterSkip()
const cluster = clusterSkip === false ? await startRedisCluster() : undefined
after(() => cluster?.stop())

async function openCluster(t: TestContext): Promise<RedisCounterStore> {
  const clusterNodes = cluster!.ports.map((port) => ({ host: '127.0.0.1', port }))
  const store = new RedisCounterStore({ clusterNodes, keyPrefix: `animal-store-test:${randomUUID()}:` })
  defer(t, () => store.close())
  assert.ok(await store.whenReady(5000), 'the cluster client connects')
  return store
}

const FACTORIES: StoreFactory[] = [
  { name: 'memory', skip: false, open: async () => new MemoryCounterStore() },
  {
    name: 'memory persisted to the SQLite file',
    skip: false,
    async open(t) {
      const storage = new SqliteStorage(join(tempDir(t), 'counters.db'), new ManualClock(T0))
      defer(t, () => storage.close())
      await storage.migrate()
      const store = new PersistedCounterStore(() => storage.counters, new ManualClock(T0), {
        maxAddresses: 100_000,
        onError: (error) => assert.fail(String(error))
      })
      defer(t, () => store.close())
      return store
    }
  },
  { name: 'redis', skip: redisReason ?? false, open: (t) => openRedis(t) },
  {
    name: 'redis behind the fallback',
    skip: redisReason ?? false,
    open: async (t) => new FallbackCounterStore(await openRedis(t), quietEvents, { maxAddresses: 100_000 })
  },
  { name: 'redis cluster (3 nodes)', skip: clusterSkip, open: (t) => openCluster(t) },
  {
    name: 'redis cluster behind the fallback',
    skip: clusterSkip,
    open: async (t) => new FallbackCounterStore(await openCluster(t), quietEvents, { maxAddresses: 100_000 })
  },
  {
    name: 'the fallback while redis is unreachable',
    skip: false,
    open: async (t) =>
      new FallbackCounterStore(await openRedis(t, `redis://127.0.0.1:${await freePort()}`), quietEvents, { maxAddresses: 100_000 })
  }
]

const keyed = (subject: string, now: number, perMinute = 3, perDay = 1000, perMonth: number | null = null): ConsumeRequest => ({
  subject,
  limits: { perMinute, perDay, perMonth },
  now,
  banThreshold: perMinute,
  banMs: BAN_MS
})
const anonymous = (subject: string, now: number): ConsumeRequest => ({ ...keyed(subject, now), banThreshold: null })

/** The outcomes of consumes made one after another, as letters: a(llowed), l(imited), b(anned). */
async function outcomes(store: CounterStore, requests: ConsumeRequest[]): Promise<string> {
  let letters = ''
  for (const request of requests) letters += (await store.consume(request)).outcome[0]
  return letters
}

const times = (n: number, make: (i: number) => ConsumeRequest): ConsumeRequest[] => Array.from({ length: n }, (_, i) => make(i))

for (const factory of FACTORIES) {
  describe(`counter store contract: ${factory.name}`, { skip: factory.skip }, () => {
    test('takes from both windows while both have room, then refuses and takes nothing', async (t) => {
      const store = await factory.open(t)
      const first = await store.consume(keyed('key:a', T0))
      assert.deepEqual(first, { outcome: 'allowed', minuteUsed: 1, dayUsed: 1, monthUsed: 0, bannedUntil: null, banStarted: false })
      assert.equal(
        await outcomes(
          store,
          times(3, (i) => keyed('key:a', T0 + i))
        ),
        'aal'
      )
      assert.deepEqual(
        await store.usage('key:a', T0 + 10),
        { minuteUsed: 3, dayUsed: 3, monthUsed: 0, bannedUntil: null },
        'the refusal took nothing'
      )
      assert.equal(await outcomes(store, [keyed('key:a', T0 + MINUTE)]), 'a', 'a new minute has room again')
      assert.deepEqual(await store.usage('key:a', T0 + MINUTE), { minuteUsed: 1, dayUsed: 4, monthUsed: 0, bannedUntil: null })
    })

    test('a spent day refuses in every minute until the day ends', async (t) => {
      const store = await factory.open(t)
      assert.equal(
        await outcomes(
          store,
          times(3, (i) => keyed('key:d', T0 + i * MINUTE, 10, 2))
        ),
        'aal'
      )
      const tomorrow = Date.parse('2026-06-16T00:00:00Z')
      assert.equal(await outcomes(store, [keyed('key:d', tomorrow, 10, 2)]), 'a')
      assert.deepEqual(await store.usage('key:d', tomorrow), { minuteUsed: 1, dayUsed: 1, monthUsed: 0, bannedUntil: null })
    })

    test('a monthly quota refuses on every day until the month ends, at 00:00 UTC on the 1st', async (t) => {
      const store = await factory.open(t)
      const metered = (now: number) => keyed('key:mo', now, 10, 100, 5)
      assert.equal(
        await outcomes(
          store,
          times(6, (i) => metered(T0 + i * DAY))
        ),
        'aaaaal',
        'five, on five days'
      )
      const lastMoment = Date.parse('2026-06-30T23:59:59.999Z')
      assert.deepEqual(await store.consume(metered(lastMoment)), {
        outcome: 'limited',
        minuteUsed: 0,
        dayUsed: 0,
        monthUsed: 5,
        bannedUntil: null,
        banStarted: false
      })
      assert.deepEqual(await store.usage('key:mo', lastMoment), { minuteUsed: 0, dayUsed: 0, monthUsed: 5, bannedUntil: null })
      const july = Date.parse('2026-07-01T00:00:00.000Z')
      assert.deepEqual(await store.consume(metered(july)), {
        outcome: 'allowed',
        minuteUsed: 1,
        dayUsed: 1,
        monthUsed: 1,
        bannedUntil: null,
        banStarted: false
      })
      assert.deepEqual(await store.usage('key:mo', july), { minuteUsed: 1, dayUsed: 1, monthUsed: 1, bannedUntil: null })
    })

    test('refusals of a spent month count towards a ban', async (t) => {
      const store = await factory.open(t)
      const metered = (i: number) => keyed('key:mb', T0 + i, 3, 100, 2)
      assert.equal(await outcomes(store, times(6, metered)), 'aalllb', 'two taken, three refusals (the per-minute limit), then a ban')
      assert.equal((await store.usage('key:mb', T0 + 10)).bannedUntil, T0 + 5 + BAN_MS)
    })

    test('without a monthly quota the month is not counted; a quota set later counts from then', async (t) => {
      const store = await factory.open(t)
      assert.equal(
        await outcomes(
          store,
          times(3, (i) => keyed('key:mq', T0 + i, 10, 100))
        ),
        'aaa'
      )
      assert.deepEqual(await store.usage('key:mq', T0 + 10), { minuteUsed: 3, dayUsed: 3, monthUsed: 0, bannedUntil: null })
      assert.equal(
        await outcomes(
          store,
          times(3, (i) => keyed('key:mq', T0 + 20 + i, 10, 100, 2))
        ),
        'aal'
      )
      assert.deepEqual(await store.usage('key:mq', T0 + 30), { minuteUsed: 5, dayUsed: 5, monthUsed: 2, bannedUntil: null })
    })

    test('as many refusals as the per-minute limit, then the next refusal starts a ban that takes nothing', async (t) => {
      const store = await factory.open(t)
      assert.equal(
        await outcomes(
          store,
          times(6, (i) => keyed('key:b', T0 + i))
        ),
        'aaalll'
      )
      const banned = await store.consume(keyed('key:b', T0 + 6))
      assert.deepEqual(banned, {
        outcome: 'banned',
        minuteUsed: 3,
        dayUsed: 3,
        monthUsed: 0,
        bannedUntil: T0 + 6 + BAN_MS,
        banStarted: true
      })
      const during = await store.consume(keyed('key:b', T0 + 5 * MINUTE))
      assert.deepEqual(during, {
        outcome: 'banned',
        minuteUsed: 0,
        dayUsed: 3,
        monthUsed: 0,
        bannedUntil: T0 + 6 + BAN_MS,
        banStarted: false
      })
      assert.deepEqual(await store.usage('key:b', T0 + 5 * MINUTE), {
        minuteUsed: 0,
        dayUsed: 3,
        monthUsed: 0,
        bannedUntil: T0 + 6 + BAN_MS
      })
      const after = T0 + 6 + BAN_MS
      assert.equal(await outcomes(store, [keyed('key:b', after)]), 'a', 'the ban ends on time')
      assert.deepEqual(await store.usage('key:b', after), { minuteUsed: 1, dayUsed: 4, monthUsed: 0, bannedUntil: null })
    })

    test('refusals count per minute window: a new minute starts the count again', async (t) => {
      const store = await factory.open(t)
      assert.equal(
        await outcomes(
          store,
          times(5, (i) => keyed('key:r', T0 + i))
        ),
        'aaall'
      )
      assert.equal(
        await outcomes(
          store,
          times(6, (i) => keyed('key:r', T0 + MINUTE + i))
        ),
        'aaalll',
        'no ban yet'
      )
      assert.equal(await outcomes(store, [keyed('key:r', T0 + MINUTE + 10)]), 'b')
    })

    test('unban lifts the ban and forgets the refusals', async (t) => {
      const store = await factory.open(t)
      await outcomes(
        store,
        times(7, (i) => keyed('key:u', T0 + i))
      )
      assert.equal((await store.usage('key:u', T0 + 10)).bannedUntil, T0 + 6 + BAN_MS)
      await store.unban('key:u', T0 + 10)
      assert.deepEqual(await store.usage('key:u', T0 + 10), { minuteUsed: 3, dayUsed: 3, monthUsed: 0, bannedUntil: null })
      assert.equal(
        await outcomes(
          store,
          times(3, (i) => keyed('key:u', T0 + 11 + i))
        ),
        'lll',
        'three fresh refusals before a new ban'
      )
      assert.equal(await outcomes(store, [keyed('key:u', T0 + 20)]), 'b')
    })

    test('bans lists every key banned now, until it is unbanned or its ban ends; never an address', async (t) => {
      const store = await factory.open(t)
      assert.deepEqual(await store.bans(T0), [])
      // Subjects in different hash slots: on a cluster, on different nodes.
      await outcomes(
        store,
        times(7, (i) => keyed('key:banned-1', T0 + i))
      )
      await outcomes(
        store,
        times(7, (i) => keyed('key:banned-2', T0 + 100 + i))
      )
      await outcomes(
        store,
        times(6, (i) => keyed('key:limited', T0 + i))
      )
      await outcomes(
        store,
        times(20, (i) => anonymous('ip:192.0.2.9', T0 + i))
      )
      const sorted = async (now: number) => (await store.bans(now)).sort((a, b) => a.bannedUntil - b.bannedUntil)
      assert.deepEqual(await sorted(T0 + 200), [
        { subject: 'key:banned-1', bannedUntil: T0 + 6 + BAN_MS },
        { subject: 'key:banned-2', bannedUntil: T0 + 106 + BAN_MS }
      ])
      await store.unban('key:banned-1', T0 + 200)
      assert.deepEqual(await sorted(T0 + 200), [{ subject: 'key:banned-2', bannedUntil: T0 + 106 + BAN_MS }])
      assert.deepEqual(await store.bans(T0 + 106 + BAN_MS), [], 'a ban that has ended is not listed')
    })

    test('an address is throttled, never banned; subjects do not share counts', async (t) => {
      const store = await factory.open(t)
      assert.equal(
        await outcomes(
          store,
          times(12, (i) => anonymous('ip:192.0.2.1', T0 + i))
        ),
        'aaalllllllll'
      )
      assert.equal(await outcomes(store, [keyed('key:other', T0 + 20)]), 'a')
      assert.deepEqual(await store.usage('ip:192.0.2.2', T0 + 20), { minuteUsed: 0, dayUsed: 0, monthUsed: 0, bannedUntil: null })
    })

    test('concurrent consumes are atomic: exactly the limit is admitted', async (t) => {
      const store = await factory.open(t)
      const results = await Promise.all(times(50, (i) => keyed('key:c', T0 + i, 20, 1000)).map(async (request) => store.consume(request)))
      assert.equal(results.filter((r) => r.outcome === 'allowed').length, 20)
      assert.deepEqual(
        results.map((r) => r.minuteUsed).slice(0, 20),
        Array.from({ length: 20 }, (_, i) => i + 1),
        'each admitted consume saw the ones before it'
      )
      assert.equal(results.filter((r) => r.banStarted).length, 1, 'the 21st refusal started the one ban')
    })

    test('consumes of many subjects in one turn are each decided as if alone', async (t) => {
      const store = await factory.open(t)
      const subjects = Array.from({ length: 12 }, (_, i) => `key:many-${i}`)
      const requests = subjects.flatMap((subject, s) => times(s % 5, (i) => keyed(subject, T0 + i)))
      const results = await Promise.all(requests.map(async (request) => store.consume(request)))
      const letters = new Map<string, string>()
      requests.forEach((request, i) => letters.set(request.subject, (letters.get(request.subject) ?? '') + results[i]!.outcome[0]))
      for (const [s, subject] of subjects.entries()) assert.equal(letters.get(subject) ?? '', 'aaal'.slice(0, s % 5), subject)
      for (const [s, subject] of subjects.entries())
        assert.equal((await store.usage(subject, T0 + 10)).minuteUsed, Math.min(3, s % 5), subject)
    })
  })
}

test('the CLI sees in the SQLite file the bans a serving process keeps in memory', async (t) => {
  const storage = new SqliteStorage(join(tempDir(t), 'counters.db'), new ManualClock(T0))
  defer(t, () => storage.close())
  await storage.migrate()
  const serving = new PersistedCounterStore(() => storage.counters, new ManualClock(T0), {
    maxAddresses: 100,
    onError: (e) => assert.fail(String(e))
  })
  defer(t, () => serving.close())
  await outcomes(
    serving,
    times(7, (i) => keyed('key:seen', T0 + i))
  )
  // A ban is written to the file the moment it starts, not at the next flush.
  const cli = new CounterFileReader(storage.counters)
  assert.deepEqual(await cli.bans(T0 + 10), [{ subject: 'key:seen', bannedUntil: T0 + 6 + BAN_MS }])
  await cli.unban('key:seen', T0 + 10)
  assert.deepEqual(await cli.bans(T0 + 10), [])
})

test('the SQLite file keeps a month of counts over days and restarts', async (t) => {
  const file = join(tempDir(t), 'counters.db')
  const june20 = Date.parse('2026-06-20T08:00:00Z')
  const open = async (clock: ManualClock) => {
    const storage = new SqliteStorage(file, clock)
    await storage.migrate()
    const store = new PersistedCounterStore(() => storage.counters, clock, { maxAddresses: 100, onError: (e) => assert.fail(String(e)) })
    return { store, close: async () => (await store.close(), storage.close()) }
  }
  const clock = new ManualClock(T0)
  const first = await open(clock)
  assert.equal(
    await outcomes(
      first.store,
      times(3, (i) => keyed('key:kept', T0 + i, 10, 100, 5))
    ),
    'aaa'
  )
  // Closed on a later day: the flush prunes rows whose day has ended, but not this month's count.
  clock.set(june20)
  await first.close()
  const second = await open(new ManualClock(june20))
  defer(t, second.close)
  assert.deepEqual(await second.store.usage('key:kept', june20), { minuteUsed: 0, dayUsed: 0, monthUsed: 3, bannedUntil: null })
  assert.equal(
    await outcomes(
      second.store,
      times(3, (i) => keyed('key:kept', june20 + i, 10, 100, 5))
    ),
    'aal'
  )
})
