import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { describe, test, type TestContext } from 'node:test'
import { AnimalStoreError, createClient, DEFAULT_RETRY_POLICY, type AnimalStoreClient, type ClientOptions } from '../src/index.ts'
import { sleep } from '../src/retry-policy.ts'

/** What the scripted service answers one request with; no code means 200 and an empty page. */
interface Answer {
  status?: number
  code?: string
  retryAfter?: string
  headers?: Record<string, string>
}

const MONTH_SECONDS = 30 * 86_400

/** A real HTTP service answering the scripted answers in turn (the last one repeats), noting when each request came. */
async function scriptedService(t: TestContext, answers: Answer[]): Promise<{ base: string; seenAt: number[] }> {
  const seenAt: number[] = []
  const server = createServer((request, response) => {
    const answer = answers[Math.min(seenAt.length, answers.length - 1)]!
    seenAt.push(Date.now())
    request.resume()
    const status = answer.status ?? (answer.code === undefined ? 200 : 429)
    const body = answer.code === undefined ? [] : { code: answer.code, message: `scripted ${answer.code}`, status }
    response.writeHead(status, {
      'content-type': 'application/json',
      'x-request-id': `req-${seenAt.length}`,
      ...(answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter }),
      ...answer.headers
    })
    response.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as { port: number }
  return { base: `http://127.0.0.1:${port}/v1`, seenAt }
}

/** A client of `base` whose waits are noted; `realWait` makes them real, else they pass at once. */
function clientOf(
  base: string,
  options: Partial<ClientOptions> & { realWait?: boolean } = {}
): { client: AnimalStoreClient; sleeps: number[] } {
  const { realWait = false, ...rest } = options
  const sleeps: number[] = []
  const client = createClient({
    baseUrl: base,
    apiKey: 'as_live_test',
    random: () => 0,
    sleep: async (ms, signal) => {
      sleeps.push(ms)
      if (realWait) await sleep(ms, signal)
    },
    ...rest
  })
  return { client, sleeps }
}

describe('a Retry-After longer than the wait budget is thrown at once', () => {
  test('429 quota_exceeded until the month ends: one request, no wait, the code, status and Retry-After surface', async (t) => {
    const service = await scriptedService(t, [
      {
        code: 'quota_exceeded',
        retryAfter: String(MONTH_SECONDS),
        headers: {
          'ratelimit-policy': '"minute";q=300;w=60, "day";q=10000;w=86400, "month";q=100000;w=2592000',
          ratelimit: '"minute";r=300;t=42, "day";r=7310;t=51234, "month";r=0;t=2592000'
        }
      },
      {}
    ])
    // The real sleep: were the client to wait, this test would not end.
    const { client, sleeps } = clientOf(service.base, { realWait: true })
    const started = Date.now()
    await assert.rejects(client.listPets(), (error: unknown) => {
      assert.ok(error instanceof AnimalStoreError, String(error))
      assert.equal(error.code, 'quota_exceeded')
      assert.equal(error.status, 429)
      assert.equal(error.retryAfterMs, MONTH_SECONDS * 1000)
      assert.equal(error.attempts, 1)
      assert.equal(error.requestId, 'req-1')
      assert.equal(error.message, 'scripted quota_exceeded')
      return true
    })
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`)
    assert.equal(service.seenAt.length, 1, 'the service saw exactly one request')
    assert.deepEqual(sleeps, [])
    assert.deepEqual(client.lastRateLimit?.windows.at(-1), {
      name: 'month',
      remaining: 0,
      resetSeconds: MONTH_SECONDS,
      quota: 100_000,
      windowSeconds: MONTH_SECONDS
    })
  })

  test('429 rate_limited with Retry-After: 1 is still retried, a second later, and succeeds', async (t) => {
    const service = await scriptedService(t, [{ code: 'rate_limited', retryAfter: '1' }, {}])
    const { client, sleeps } = clientOf(service.base, { realWait: true })
    assert.deepEqual(await client.listPets(), { pets: [], nextCursor: null })
    assert.equal(service.seenAt.length, 2)
    assert.deepEqual(sleeps, [1000])
    assert.ok(service.seenAt[1]! - service.seenAt[0]! >= 990, `retried after ${service.seenAt[1]! - service.seenAt[0]!} ms`)
  })

  for (const code of ['rate_limited', 'api_key_banned', 'quota_exceeded']) {
    test(`429 ${code}: a Retry-After of the whole budget is waited out, one second more is not`, async (t) => {
      const budgetSeconds = DEFAULT_RETRY_POLICY.maxTotalWaitMs / 1000
      const fits = await scriptedService(t, [{ code, retryAfter: String(budgetSeconds) }, {}])
      const patient = clientOf(fits.base)
      await patient.client.listPets()
      assert.equal(fits.seenAt.length, 2)
      assert.deepEqual(patient.sleeps, [DEFAULT_RETRY_POLICY.maxTotalWaitMs])

      const tooLong = await scriptedService(t, [{ code, retryAfter: String(budgetSeconds + 1) }, {}])
      const impatient = clientOf(tooLong.base)
      await assert.rejects(impatient.client.listPets(), { code, status: 429, retryAfterMs: (budgetSeconds + 1) * 1000, attempts: 1 })
      assert.equal(tooLong.seenAt.length, 1)
      assert.deepEqual(impatient.sleeps, [])
    })
  }

  test('the budget is what the call has left: a configured maxTotalWaitMs, less the waits already made', async (t) => {
    const service = await scriptedService(t, [{ code: 'rate_limited', retryAfter: '3' }, { code: 'rate_limited', retryAfter: '3' }, {}])
    const { client, sleeps } = clientOf(service.base, { maxTotalWaitMs: 5_000 })
    await assert.rejects(client.listPets(), { code: 'rate_limited', retryAfterMs: 3_000, attempts: 2 })
    assert.equal(service.seenAt.length, 2)
    assert.deepEqual(sleeps, [3_000])
  })

  test('quota_exceeded without Retry-After is not retried: when the month ends is unknown', async (t) => {
    const service = await scriptedService(t, [{ code: 'quota_exceeded' }, {}])
    const { client, sleeps } = clientOf(service.base)
    await assert.rejects(client.listPets(), { code: 'quota_exceeded', status: 429, retryAfterMs: undefined, attempts: 1 })
    assert.equal(service.seenAt.length, 1)
    assert.deepEqual(sleeps, [])
  })

  test('a 503 with a Retry-After past the budget is thrown at once too', async (t) => {
    const service = await scriptedService(t, [{ status: 503, code: 'unavailable', retryAfter: '3600' }, {}])
    const { client, sleeps } = clientOf(service.base)
    await assert.rejects(client.listPets(), { code: 'unavailable', status: 503, retryAfterMs: 3_600_000, attempts: 1 })
    assert.equal(service.seenAt.length, 1)
    assert.deepEqual(sleeps, [])
  })
})
