import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { MemoryCounterStore } from '../../src/limits/memory/counter-store.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore } from '../../src/limits/types.ts'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { until } from '../helpers/wait.ts'

const skip = await backendSkip(postgresBackend)

/** Real in-memory counters whose answers the test can hold back, as a slow Redis would. */
class HeldCounters implements CounterStore {
  readonly #inner = new MemoryCounterStore()
  #held: Array<() => void> = []
  holding = false

  consume(request: ConsumeRequest): ConsumeResult | Promise<ConsumeResult> {
    const result = this.#inner.consume(request)
    if (!this.holding) return result
    return new Promise((resolve) => this.#held.push(() => resolve(result)))
  }

  get waiting(): number {
    return this.#held.length
  }

  release(): void {
    this.holding = false
    for (const answer of this.#held.splice(0)) answer()
  }

  usage(subject: string, now: number) {
    return this.#inner.usage(subject, now)
  }

  unban(subject: string) {
    return this.#inner.unban(subject)
  }

  bans(now: number) {
    return this.#inner.bans(now)
  }

  async close() {}
}

/** The service on PostgreSQL with held counters, and how many pet reads reached the store. */
async function appCountingReads(t: TestContext): Promise<{ app: TestApp; counters: HeldCounters; reads: () => number }> {
  const counters = new HeldCounters()
  const app = await startApp(t, { backend: postgresBackend, compose: { counters } })
  const pets = app.storage.pets
  const get = pets.get.bind(pets)
  let reads = 0
  pets.get = (id) => {
    reads++
    return get(id)
  }
  return { app, counters, reads: () => reads }
}

describe('speculative reads: a get starts before its rate-limit verdict (PostgreSQL + Redis)', { skip }, () => {
  test('a get by a key in good standing reads its pet while the rate limiter is still deciding', async (t) => {
    const { app, counters, reads } = await appCountingReads(t)
    const key = await app.key({ plan: 'pro' })
    const created = (await (
      await app.fetch('/v1/pets', {
        key,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"Rex","categoryId":3}'
      })
    ).json()) as { id: number }

    counters.holding = true
    const answer = app.fetch(`/v1/pets/${created.id}`, { key })
    await until(() => counters.waiting === 1, { timeoutMs: 2000, what: "the rate limiter's consume" })
    await until(() => reads() === 1, { timeoutMs: 2000, what: 'the read of the pet' })
    assert.equal(counters.waiting, 1, 'the limiter has not answered yet')
    counters.release()
    const response = await answer
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { id: created.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.equal(reads(), 1, 'the handler used the read made on arrival')
  })

  test(
    'nothing is read before the limiter answers for a request without a valid key, ' + 'or for a key whose latest request was refused',
    async (t) => {
      const { app, counters, reads } = await appCountingReads(t)
      const { key } = await app.keyWithId({ plan: 'free', perMinute: 1, perDay: 1000 })
      counters.holding = true

      const anonymous = app.fetch('/v1/pets/1', { key: null })
      const forged = app.fetch('/v1/pets/1', { key: `as_live_${'x'.repeat(43)}` })
      await until(() => counters.waiting === 2, { timeoutMs: 2000, what: 'both consumes' })
      assert.equal(reads(), 0)
      counters.release()
      assert.deepEqual([(await anonymous).status, (await forged).status], [401, 401])

      assert.equal((await app.fetch('/v1/pets/1', { key })).status, 404)
      assert.equal(reads(), 1)
      // Over its limit: the first refused request had been read on arrival (its key's latest
      // request was admitted); the next one is not.
      assert.equal((await app.fetch('/v1/pets/1', { key })).status, 429)
      assert.equal(reads(), 2)
      assert.equal((await app.fetch('/v1/pets/1', { key })).status, 429)
      assert.equal(reads(), 2, 'a key whose latest request was refused reads nothing')

      // That second refusal started a ban. Once it is over: admitted again (read after the
      // limiter answered), and in good standing from then on.
      app.clock.advance(app.config.banSeconds * 1000)
      assert.equal((await app.fetch('/v1/pets/1', { key })).status, 404)
      assert.equal(reads(), 3)
      app.clock.advance(60_000)
      counters.holding = true
      const next = app.fetch('/v1/pets/1', { key })
      await until(() => counters.waiting === 1, { timeoutMs: 2000, what: 'the consume' })
      await until(() => reads() === 4, { timeoutMs: 2000, what: 'the read on arrival' })
      counters.release()
      assert.equal((await next).status, 404)
    }
  )

  test('a refused read is answered as a refusal before the read would be: no header of the page, the Error body', async (t) => {
    const { app } = await appCountingReads(t)
    for (const name of ['a', 'b']) assert.equal((await postJson(app, '/v1/pets', { name, categoryId: 1 })).status, 201)
    const { key } = await app.keyWithId({ plan: 'free', perMinute: 2, perDay: 1000 })
    for (let i = 0; i < 2; i++) {
      const page = await app.fetch('/v1/pets?limit=1', { key })
      assert.equal(page.status, 200)
      assert.match(page.headers.get('link') ?? '', /rel="next"/)
    }
    // Read while the verdict was pending (the key's latest request was admitted), then refused.
    const speculated = await app.fetch('/v1/pets?limit=1', { key })
    // Refused before any read (the key's latest request was refused).
    const refused = await app.fetch('/v1/pets?limit=1', { key })
    const headerNames = (response: Response) => [...response.headers.keys()].filter((name) => name !== 'date').sort()
    assert.deepEqual(headerNames(speculated), headerNames(refused))
    assert.equal(speculated.headers.get('link'), null)
    assert.equal(speculated.headers.get('x-ratelimit-remaining'), '0')
    assert.match(speculated.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    await assertError(speculated, 'rate_limited')
    await assertError(refused, 'rate_limited')
  })
})
