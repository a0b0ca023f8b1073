import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AuditEvent, Key } from '@animal-store/contract'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp } from '../helpers/app.ts'
import { postgresBackend, suiteBackends } from '../helpers/backends.ts'
import { assertOperatorError, createKeyAs, readAdmin, sendAdmin } from '../helpers/operator-api.ts'
import { until } from '../helpers/wait.ts'

const PET = { name: 'Rex', categoryId: 1 }

/** What remains of the key's minute window, from a response's `RateLimit` field. */
const minuteRemaining = (response: Response) => Number(/"minute";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1])

for (const { backend, skip } of await suiteBackends()) {
  describe(`scoped keys [${backend.name}]`, { skip }, () => {
    test('a new key has both scopes; a read-only key is 403 insufficient_scope on a create, with the challenge, and it takes quota', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const both = await createKeyAs(app, admin, { plan: 'free' })
      assert.deepEqual(both.scopes, ['pets:read', 'pets:write'])
      assert.equal((await postJson(app, '/v1/pets', PET, { key: both.key })).status, 201)

      const reader = await createKeyAs(app, admin, { plan: 'free', scopes: ['pets:read'] })
      assert.deepEqual(reader.scopes, ['pets:read'])
      const list = await app.fetch('/v1/pets', { key: reader.key })
      assert.equal(list.status, 200)
      assert.equal(minuteRemaining(list), 59)
      const refused = await postJson(app, '/v1/pets', PET, { key: reader.key })
      assert.equal(
        refused.headers.get('www-authenticate'),
        'Bearer realm="animal-store", error="insufficient_scope", scope="pets:write"',
        'the RFC 6750 §3.1 challenge'
      )
      assert.equal(minuteRemaining(refused), 58, 'the refused call took quota and carries the rate-limit headers')
      assert.ok(refused.headers.get('ratelimit-policy'))
      await assertError(refused, 'insufficient_scope', /needs the pets:write scope/)
      assert.equal((await app.fetch('/v1/pets', { key: reader.key })).headers.get('ratelimit')?.includes('"minute";r=57'), true)

      const writer = await createKeyAs(app, admin, { plan: 'free', scopes: ['pets:write'] })
      for (const path of ['/v1/pets', '/v1/pets/1']) {
        const response = await app.fetch(path, { key: writer.key })
        assert.match(response.headers.get('www-authenticate') ?? '', /scope="pets:read"/, path)
        await assertError(response, 'insufficient_scope', /needs the pets:read scope/)
      }
      assert.equal((await postJson(app, '/v1/pets', PET, { key: writer.key })).status, 201)
      const status = await app.fetch('/v1/rate_limit', { key: (await createKeyAs(app, admin, { plan: 'free', scopes: [] })).key })
      assert.equal(status.status, 200, 'getRateLimit needs no scope')
    })

    test('a rate-limited read-only key is refused 429 before its scope is looked at', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const reader = await createKeyAs(app, admin, { plan: 'enterprise', perMinute: 1, perDay: 100, scopes: ['pets:read'] })
      assert.equal((await app.fetch('/v1/pets', { key: reader.key })).status, 200)
      await assertError(await postJson(app, '/v1/pets', PET, { key: reader.key }), 'rate_limited')
    })

    test('bad scopes are 400 and create or change nothing; an update changes scopes in place, audited', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin', 'Ada')
      for (const scopes of [['pets:admin'], ['pets:read', 'pets:read'], 'pets:read', [1]]) {
        await assertOperatorError(
          await sendAdmin(app, 'POST', '/admin/v1/keys', admin, { plan: 'free', scopes }),
          'validation_failed',
          'scopes'
        )
      }
      assert.deepEqual(await app.storage.keys.list(), [])
      const key = await createKeyAs(app, admin, { plan: 'free' })
      const changed = await sendAdmin(app, 'PATCH', `/admin/v1/keys/${key.id}`, admin, { scopes: ['pets:write', 'pets:read'].slice(1) })
      assert.equal(changed.status, 200)
      assert.deepEqual(((await changed.json()) as Key).scopes, ['pets:read'])
      await assertError(await postJson(app, '/v1/pets', PET, { key: key.key }), 'insufficient_scope')
      const events = await readAdmin<AuditEvent[]>(app, `/admin/v1/audit?target=${key.id}&action=key.update`, admin)
      assert.deepEqual(events[0]?.changes, { scopes: { from: 'pets:read pets:write', to: 'pets:read' } })
    })

    test('a scope change reaches an instance that did not make it within 5 seconds', async (t) => {
      const first = await startApp(t, { backend, admin: true })
      const second = backend === postgresBackend ? await startApp(t, { backend, shareStorageWith: first }) : first
      const admin = await first.operator('admin')
      const key = await createKeyAs(first, admin, { plan: 'free', scopes: ['pets:read'] })
      await assertError(await postJson(second, '/v1/pets', PET, { key: key.key }), 'insufficient_scope')
      const changed = await sendAdmin(first, 'PATCH', `/admin/v1/keys/${key.id}`, admin, { scopes: ['pets:read', 'pets:write'] })
      assert.equal(changed.status, 200)
      // Key lookups are cached 2 s on the service's clock: 2 s later, the other instance reads the key again.
      second.clock.advance(2_000)
      await until(async () => (await postJson(second, '/v1/pets', PET, { key: key.key })).status === 201, {
        timeoutMs: 3000,
        intervalMs: 200,
        what: 'the new scope on the other instance'
      })
    })
  })
}
