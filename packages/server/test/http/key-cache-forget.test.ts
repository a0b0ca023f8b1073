import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import type { RateLimitStatus } from '@animal-store/contract'
import { ManualClock } from '../../src/base/clock.ts'
import { compose } from '../../src/compose.ts'
import { loadConfig } from '../../src/config.ts'
import type { Actor } from '../../src/domain/actor.ts'
import { KeyCache } from '../../src/domain/keys/cache.ts'
import type { KeyMatch, KeyStore } from '../../src/storage/keys/types.ts'
import { assertError } from '../helpers/assertions.ts'
import { startApp } from '../helpers/app.ts'
import { sqliteBackend, suiteBackends } from '../helpers/backends.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { defer } from '../helpers/temp.ts'
import { testAudit } from '../helpers/audit.ts'

const OPERATOR: Actor = { type: 'operator', id: 'op_test', name: 'test' }

for (const { backend, skip } of await suiteBackends()) {
  describe(`changes made by the serving process apply there at once [${backend.name}]`, { skip }, () => {
    // The service's clock stands still: without the key cache dropping the key, every lookup below would be a hit.
    test('revoke: the next request with the key is refused', async (t) => {
      const app = await startApp(t, { backend })
      const { key, id } = await app.keyWithId({ plan: 'pro' })
      assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      assert.equal((await app.fetch('/v1/pets', { key })).status, 200, 'served from the key cache')
      await app.services.keys.revoke(id, OPERATOR)
      await assertError(await app.fetch('/v1/pets', { key }), 'unauthorized', 'revoked')
      // Revoking again also drops the key here: another process may have revoked it while this one had it cached.
      const other = await app.keyWithId()
      assert.equal((await app.fetch('/v1/pets', { key: other.key })).status, 200)
      await app.storage.keys.revoke(other.id, app.clock.now(), testAudit('key.revoke'))
      assert.equal((await app.fetch('/v1/pets', { key: other.key })).status, 200, 'still cached: revoked behind its back')
      assert.equal((await app.services.keys.revoke(other.id, OPERATOR)).event, null)
      await assertError(await app.fetch('/v1/pets', { key: other.key }), 'unauthorized', 'revoked')
    })

    test('update and rotate: the new plan and the end of the old secret apply at once', async (t) => {
      const app = await startApp(t, { backend })
      const { key, id } = await app.keyWithId({ plan: 'free' })
      const plan = async (secret: string) => ((await (await app.fetch('/v1/rate_limit', { key: secret })).json()) as RateLimitStatus).plan
      assert.equal(await plan(key), 'free')
      await app.services.keys.update(id, { plan: 'business' }, OPERATOR)
      assert.equal(await plan(key), 'business')
      const rotated = await app.services.keys.rotate(id, { graceSeconds: 0 }, OPERATOR)
      recordIssuedKey(rotated.key)
      await assertError(await app.fetch('/v1/pets', { key }), 'unauthorized', 'rotated')
      assert.equal((await app.fetch('/v1/pets', { key: rotated.key })).status, 200)
    })
  })
}

/** A real store that counts its lookups by hash and can hold them until released. */
function observed(store: KeyStore): KeyStore & { lookups: number; hold(): () => void } {
  let gate: Promise<void> | undefined
  const wrapped = {
    ...store,
    lookups: 0,
    async findByHash(hash: string): Promise<KeyMatch | undefined> {
      wrapped.lookups++
      await gate
      return store.findByHash(hash)
    },
    hold() {
      let release!: () => void
      gate = new Promise((resolve) => (release = resolve))
      return () => {
        gate = undefined
        release()
      }
    }
  }
  return wrapped
}

async function sqliteKeys(t: TestContext) {
  const clock = new ManualClock(Date.parse('2026-06-15T12:00:10Z'))
  const services = await compose(loadConfig(await sqliteBackend.environment(t)), { role: 'cli', clock })
  defer(t, () => services.close())
  const issue = async () => {
    const { key, view } = await services.keys.create({ plan: 'free' }, OPERATOR)
    recordIssuedKey(key)
    return { key, id: view.id }
  }
  return { keys: services.keys, store: observed(services.storage.keys), clock, issue }
}

describe('KeyCache.forget', () => {
  test('drops every cached secret of the key, and only those', async (t) => {
    const { keys, store, clock, issue } = await sqliteKeys(t)
    const a = await issue()
    const b = await issue()
    const rotated = await keys.rotate(a.id, { graceSeconds: 60 }, OPERATOR)
    recordIssuedKey(rotated.key)
    const cache = new KeyCache(store, clock)
    for (const secret of [a.key, rotated.key, b.key]) assert.equal((await cache.find(secret))?.id, secret === b.key ? b.id : a.id)
    assert.equal(store.lookups, 3)
    for (const secret of [a.key, rotated.key, b.key]) assert.ok(!(cache.find(secret) instanceof Promise), 'a hit is synchronous')
    cache.forget(a.id)
    cache.forget('key_notcachedatall0')
    assert.ok(!(cache.find(b.key) instanceof Promise), 'the other key stays cached')
    assert.equal(store.lookups, 3)
    for (const secret of [a.key, rotated.key]) assert.equal((await cache.find(secret))?.id, a.id)
    assert.equal(store.lookups, 5, 'both secrets of the forgotten key were looked up again')
    assert.ok(!(cache.find(a.key) instanceof Promise), 'and cached again')
  })

  test('a lookup under way when a key is forgotten is answered, not kept', async (t) => {
    const { store, clock, issue } = await sqliteKeys(t)
    const a = await issue()
    const cache = new KeyCache(store, clock)
    const release = store.hold()
    const pending = cache.find(a.key)
    assert.ok(pending instanceof Promise)
    cache.forget(a.id)
    release()
    assert.equal((await pending)?.id, a.id)
    assert.ok(cache.find(a.key) instanceof Promise, 'read before the change: looked up again')
    assert.equal(store.lookups, 2)
  })

  test('keys the bounded cache evicted are forgotten harmlessly and found again', async (t) => {
    const { store, clock, issue } = await sqliteKeys(t)
    const issued = [await issue(), await issue(), await issue()]
    const cache = new KeyCache(store, clock, { maxEntries: 2 })
    for (const { key } of issued) await cache.find(key)
    const evicted = cache.find(issued[0]!.key)
    assert.ok(evicted instanceof Promise, 'the oldest entry was evicted')
    await evicted
    for (const { id } of issued) cache.forget(id)
    for (const { key, id } of issued) assert.equal((await cache.find(key))?.id, id)
    assert.equal(store.lookups, 7)
  })
})
