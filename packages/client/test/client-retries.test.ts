import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { AnimalStoreError, AnimalStoreNetworkError, createClient, type FetchFunction } from '../src/index.ts'
import { type PetStore } from '../../server/src/storage/pets/types.ts'
import { StorageUnavailableError, type Storage } from '../../server/src/storage/types.ts'
import { freePort } from '../../server/test/helpers/temp.ts'
import { until } from '../../server/test/helpers/wait.ts'
import { clientOf, startApp, unlimitedKey, type TestApp } from './helpers/service.ts'

// 50 s before the end of the minute (the Retry-After of a spent minute), as in the server's suites.
const START = new Date('2026-06-15T12:00:10Z')

/** Spends a key's minute window with plain requests, so the client under test starts refused. */
async function spendMinute(app: TestApp, key: string, perMinute = 60): Promise<void> {
  for (let i = 0; i < perMinute; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
  assert.equal((await app.fetch('/v1/pets', { key })).status, 429)
}

describe('retries on 429: waits as Retry-After says, within the promised attempts', () => {
  test('a Free key driven past its limit: 150 creates all succeed, one 429 per exhausted minute, never early, never banned', async (t) => {
    const app = await startApp(t, { now: START })
    const { client, sent, sleeps } = clientOf(app, await app.key({ plan: 'free' }))
    for (let i = 0; i < 150; i++) await client.createPet({ name: `pet ${i}`, categoryId: 1 })

    const refusals = sent.filter((r) => r.status === 429)
    assert.deepEqual(
      refusals.map((r) => [r.code, r.retryAfter]),
      [
        ['rate_limited', '50'],
        ['rate_limited', '60']
      ]
    )
    assert.equal(sent.length, 150 + refusals.length, 'one extra attempt per refusal, no more')
    assert.deepEqual(sleeps, [50_000, 60_000], 'each wait is exactly what Retry-After asked (it is longer than the backoff)')
    for (const [i, request] of sent.entries()) {
      if (request.status !== 429) continue
      const retry = sent[i + 1]!
      assert.ok(
        retry.at >= request.at + Number(request.retryAfter) * 1000,
        `retry ${i + 1} came ${retry.at - request.at} ms after a Retry-After of ${request.retryAfter} s`
      )
      assert.equal(
        retry.headers.get('idempotency-key'),
        request.headers.get('idempotency-key'),
        'a retried create keeps its Idempotency-Key'
      )
    }
    assert.equal((await app.storage.pets.page({ status: undefined, afterId: undefined, limit: 200 })).length, 150)
  })

  test('20 concurrent calls on a spent minute: each retries once, after Retry-After, and all succeed', async (t) => {
    const app = await startApp(t, { now: START })
    const key = await app.key({ plan: 'free' })
    await spendMinute(app, key)
    // Time moves only once all 20 wait, so no request in flight slips into the next minute.
    const waiting: Array<{ wake: number; resolve: () => void }> = []
    const sleeps: number[] = []
    const { client, sent } = clientOf(app, key, {
      random: Math.random,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          sleeps.push(ms)
          waiting.push({ wake: app.clock.now() + ms, resolve })
          if (waiting.length < 20) return
          app.clock.set(Math.max(...waiting.map((w) => w.wake)))
          for (const sleeper of waiting) sleeper.resolve()
        })
    })
    const pages = await Promise.all(Array.from({ length: 20 }, () => client.listPets()))
    assert.equal(pages.length, 20)
    assert.equal(sent.length, 40)
    assert.deepEqual(
      sent.slice(0, 20).map((r) => r.code),
      Array(20).fill('rate_limited')
    )
    assert.ok(sent.slice(20).every((r) => r.status === 200 && r.at >= Date.parse('2026-06-15T12:01:00Z')))
    assert.deepEqual(sleeps, Array(20).fill(50_000), 'Retry-After (50 s) outweighs any jitter below the first ceiling')
  })

  test('a wait longer than maxTotalWaitMs is not started: the 429 is thrown with its Retry-After', async (t) => {
    const app = await startApp(t, { now: START })
    const key = await app.key({ plan: 'free' })
    await spendMinute(app, key)
    const { client, sent, sleeps } = clientOf(app, key, { maxTotalWaitMs: 30_000 })
    await assert.rejects(client.listPets(), (error: unknown) => {
      assert.ok(error instanceof AnimalStoreError)
      assert.equal(error.code, 'rate_limited')
      assert.equal(error.status, 429)
      assert.equal(error.retryAfterMs, 50_000)
      assert.equal(error.attempts, 1)
      return true
    })
    assert.equal(sent.length, 1)
    assert.deepEqual(sleeps, [])
    assert.equal(client.lastRateLimit?.remaining, 0)
  })

  test('maxRetries caps the attempts: 1 + maxRetries requests, then the last 429', async (t) => {
    const app = await startApp(t, { now: START })
    const key = await app.key({ plan: 'enterprise', perMinute: 2, perDay: 1000 })
    await spendMinute(app, key, 2)
    const { client, sent } = clientOf(app, key, {
      maxRetries: 2,
      // Each retry finds its fresh minute already spent by another user of the key.
      sleep: async (ms) => {
        app.clock.advance(ms)
        for (let i = 0; i < 2; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      }
    })
    await assert.rejects(client.listPets(), { code: 'rate_limited', attempts: 3 })
    assert.equal(sent.length, 3)
  })

  test('api_key_banned: gives up at once when the ban outlasts the wait budget, else waits it out in one sleep', async (t) => {
    const app = await startApp(t, { now: START })
    const key = await app.key({ plan: 'free' })
    await spendMinute(app, key)
    // Refusals 2 to 60 are rate_limited; the 61st starts the 15-minute ban.
    for (let i = 0; i < 59; i++) assert.equal((await app.fetch('/v1/pets', { key })).status, 429)
    const banned = await app.fetch('/v1/pets', { key })
    assert.equal(((await banned.json()) as { code: string }).code, 'api_key_banned')
    const banSeconds = Number(banned.headers.get('retry-after'))
    assert.ok(banSeconds > 120, `a ban of ${banSeconds} s outlasts the default budget`)

    const impatient = clientOf(app, key)
    await assert.rejects(impatient.client.listPets(), { code: 'api_key_banned', status: 429, retryAfterMs: banSeconds * 1000, attempts: 1 })
    assert.equal(impatient.sent.length, 1, 'no hammering during a ban')
    assert.deepEqual(impatient.sleeps, [])

    const patient = clientOf(app, key, { maxTotalWaitMs: 20 * 60_000 })
    assert.deepEqual(await patient.client.listPets(), { pets: [], nextCursor: null })
    assert.deepEqual(patient.sleeps, [banSeconds * 1000])
    assert.deepEqual(
      patient.sent.map((r) => r.status),
      [429, 200]
    )
  })
})

/** A storage whose pet store answers "unreachable" for the first `failures` page reads. */
function flakyPages(failures: number): (storage: Storage) => Storage {
  return (storage) => {
    let left = failures
    const { pets } = storage
    const flaky: PetStore = {
      create: (pet, idempotency) => pets.create(pet, idempotency),
      get: (id) => pets.get(id),
      page: async (query) => {
        if (left-- > 0) throw new StorageUnavailableError('connection refused')
        return pets.page(query)
      }
    }
    return {
      pets: flaky,
      keys: storage.keys,
      idempotency: storage.idempotency,
      usage: storage.usage,
      operators: storage.operators,
      audit: storage.audit,
      plans: storage.plans,
      customers: storage.customers,
      migrate: () => storage.migrate(),
      ping: () => storage.ping(),
      close: () => storage.close()
    }
  }
}

describe('retries on 503 and network failures', () => {
  test('503 unavailable is retried after its Retry-After, then succeeds', async (t) => {
    const app = await startApp(t, { compose: { wrapStorage: flakyPages(2) } })
    const { client, sent, sleeps } = clientOf(app, await unlimitedKey(app))
    assert.deepEqual(await client.listPets(), { pets: [], nextCursor: null })
    assert.deepEqual(
      sent.map((r) => `${r.status} ${r.code ?? ''}`),
      ['503 unavailable', '503 unavailable', '200 ']
    )
    assert.deepEqual(sleeps, [5_000, 5_000])
  })

  test('network failures are retried with full-jitter backoff under the doubling ceiling', async (t) => {
    const app = await startApp(t)
    let failures = 3
    const flaky: FetchFunction = async (input, init) => {
      if (failures-- > 0)
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })
      return fetch(input, init)
    }
    const { client, sent, sleeps } = clientOf(app, await unlimitedKey(app), { innerFetch: flaky, random: () => 0.999 })
    await client.listPets()
    assert.equal(sent.length, 4)
    assert.deepEqual(sleeps, [499, 999, 1998], 'random() times 500, 1000, 2000 ms')
  })

  test('a refused connection, after the allowed retries, is an AnimalStoreNetworkError naming the cause', async () => {
    const port = await freePort()
    const sleeps: number[] = []
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'as_live_x',
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      random: () => 0
    })
    await assert.rejects(client.listPets(), (error: unknown) => {
      assert.ok(error instanceof AnimalStoreNetworkError, String(error))
      assert.equal(error.attempts, 3)
      assert.match(error.message, /ECONNREFUSED/)
      return true
    })
    assert.deepEqual(sleeps, [0, 0])
  })

  test('an attempt that gets no answer within timeoutMs counts as a network failure', async (t) => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => {
      sockets.add(socket)
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    t.after(() => {
      for (const socket of sockets) socket.destroy()
      silent.close()
    })
    const { port } = silent.address() as { port: number }
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'as_live_x',
      timeoutMs: 100,
      maxRetries: 1,
      sleep: async () => {}
    })
    const started = Date.now()
    await assert.rejects(client.listPets(), (error: unknown) => {
      assert.ok(error instanceof AnimalStoreNetworkError)
      assert.equal(error.attempts, 2)
      assert.match(error.message, /no response within 100 ms/)
      return true
    })
    assert.ok(Date.now() - started < 2_000)
  })

  test('never retries other 4xx or 5xx', async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    await assert.rejects(client.createPet({ name: 'x', categoryId: -1 }), { code: 'validation_failed' })
    assert.equal(sent.length, 1)

    // A broken proxy in front of the service: an HTML 500, not our Error body.
    const proxy = createHttpServer((_request, response) => {
      proxyHits++
      response.writeHead(500, { 'content-type': 'text/html' }).end('<html>internal error</html>')
    })
    let proxyHits = 0
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    t.after(() => proxy.close())
    const { port } = proxy.address() as { port: number }
    const behindProxy = createClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'as_live_x',
      sleep: async () => assert.fail('no sleep')
    })
    await assert.rejects(behindProxy.listPets(), {
      name: 'AnimalStoreError',
      code: 'internal_error',
      status: 500,
      attempts: 1,
      message: 'the service answered 500 without an Error body'
    })
    assert.equal(proxyHits, 1)
  })
})

describe('AbortSignal', () => {
  test('aborting during a wait rejects at once with the reason, and nothing more is sent', async (t) => {
    const app = await startApp(t, { now: START })
    const key = await app.key({ plan: 'free' })
    await spendMinute(app, key)
    // The real sleep: Retry-After is 50 s, so only the abort can end this test quickly. Its timer is
    // watched (and still runs) so the abort comes once the client is waiting.
    const timers = t.mock.method(globalThis, 'setTimeout')
    const { client, sent } = clientOf(app, key, { sleep: undefined })
    const controller = new AbortController()
    const reason = new Error('user gave up')
    const listing = client.listPets({}, { signal: controller.signal })
    await until(() => timers.mock.calls.some((call) => call.arguments[1] === 50_000), {
      timeoutMs: 5000,
      what: 'the client to wait out the 50 s Retry-After'
    })
    const abortedAt = Date.now()
    controller.abort(reason)
    await assert.rejects(listing, (error) => error === reason)
    assert.ok(Date.now() - abortedAt < 2_000)
    assert.equal(sent.length, 1)
  })

  test('an already aborted signal sends nothing; aborting in flight rejects with the reason', async (t) => {
    const app = await startApp(t)
    const { client, sent } = clientOf(app, await unlimitedKey(app))
    await assert.rejects(client.listPets({}, { signal: AbortSignal.abort(new Error('before')) }), { message: 'before' })
    assert.equal(sent.length, 0)

    const controller = new AbortController()
    const slow: FetchFunction = async (input, init) => {
      controller.abort(new Error('during'))
      return fetch(input, init)
    }
    const { client: aborting, sent: abortingSent } = clientOf(app, await unlimitedKey(app), { innerFetch: slow })
    await assert.rejects(aborting.createPet({ name: 'x', categoryId: 1 }, { signal: controller.signal }), { message: 'during' })
    assert.equal(abortingSent.length, 1)
  })
})
