import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { MemoryCounterStore } from '../src/limits/memory.ts'
import type { ConsumeRequest, ConsumeResult, CounterStore } from '../src/limits/types.ts'
import { startApp, type TestApp } from './helpers/app.ts'
import { backendSkip, postgresBackend } from './helpers/backends.ts'

const skip = await backendSkip(postgresBackend)

/** Real in-memory counters whose answers the test can hold back, as a slow Redis would. */
class HeldCounters implements CounterStore {
  readonly #inner = new MemoryCounterStore()
  #held: Array<() => void> = []
  holding = false

  consume(request: ConsumeRequest): ConsumeResult | Promise<ConsumeResult> {
    const result = this.#inner.consume(request)
    if (!this.holding) return result
    return new Promise((resolve) => this.#held.push(() => resolve(result as ConsumeResult)))
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

  async close() {}
}

/** The service on PostgreSQL with held counters, and how many pet reads reached the store. */
async function appCountingReads(t: TestContext): Promise<{ app: TestApp, counters: HeldCounters, reads: () => number }> {
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

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 2000) assert.fail(`${what} did not happen within 2 s`)
    await delay(5)
  }
}

describe('gets read on arrival (a store across the network)', { skip }, () => {
  test('a get by a key in good standing reads its pet while the rate limiter is still deciding', async (t) => {
    const { app, counters, reads } = await appCountingReads(t)
    const key = await app.key({ plan: 'pro' })
    const created = await (await app.fetch('/v1/pets', { key, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Rex","categoryId":3}' })).json() as { id: number }

    counters.holding = true
    const answer = app.fetch(`/v1/pets/${created.id}`, { key })
    await until(() => counters.waiting === 1, 'the rate limiter\'s consume')
    await until(() => reads() === 1, 'the read of the pet')
    assert.equal(counters.waiting, 1, 'the limiter has not answered yet')
    counters.release()
    const response = await answer
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { id: created.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.equal(reads(), 1, 'the handler used the read made on arrival')
  })

  test('nothing is read before the limiter answers for a request without a valid key, or for a key whose latest request was refused', async (t) => {
    const { app, counters, reads } = await appCountingReads(t)
    const { key } = await app.keyWithId({ plan: 'free', perMinute: 1, perDay: 1000 })
    counters.holding = true

    const anonymous = app.fetch('/v1/pets/1', { key: null })
    const forged = app.fetch('/v1/pets/1', { key: `as_live_${'x'.repeat(43)}` })
    await until(() => counters.waiting === 2, 'both consumes')
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
    await until(() => counters.waiting === 1, 'the consume')
    await until(() => reads() === 4, 'the read on arrival')
    counters.release()
    assert.equal((await next).status, 404)
  })
})
