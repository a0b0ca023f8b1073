import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { generateSecret } from '../../src/domain/keys/secret.ts'
import { testAudit } from '../helpers/audit.ts'

/** Every operation, so the security matrix runs against each one. */
const OPERATIONS: Array<[string, (t: TestApp, key: string | null, headers?: Record<string, string>) => Promise<Response>]> = [
  ['listPets', (t, key, headers) => t.fetch('/v1/pets', { key, headers })],
  ['createPet', (t, key, headers) => postJson(t, '/v1/pets', { name: 'n', categoryId: 1 }, { key, headers })],
  ['getPet', (t, key, headers) => t.fetch('/v1/pets/1', { key, headers })]
]

const CHALLENGE = 'Bearer realm="animal-store"'

for (const { backend, skip } of await suiteBackends()) {
  describe(`authentication [${backend.name}]`, { skip }, () => {
    for (const [name, call] of OPERATIONS) {
      test(`${name}: missing, malformed, unknown, revoked and expired keys are 401`, async (t) => {
        const app = await startApp(t, { backend })
        const missing = await call(app, null)
        assert.equal(missing.headers.get('www-authenticate'), CHALLENGE)
        await assertError(missing, 'unauthorized')

        for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'bearer']) {
          const response = await call(app, null, { authorization: header })
          assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="animal-store", error="invalid_token"/)
          await assertError(response, 'unauthorized')
        }
        // Another scheme offers no bearer token at all: the bare challenge (RFC 6750 §3.1).
        for (const header of ['Basic dXNlcjpwYXNz', 'as_live_abc', 'Token abc']) {
          const response = await call(app, null, { authorization: header })
          assert.equal(response.headers.get('www-authenticate'), CHALLENGE)
          await assertError(response, 'unauthorized')
        }
        for (const secret of [generateSecret(), 'as_live_short', `${generateSecret()}x`]) {
          const response = await call(app, secret)
          assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/)
          await assertError(response, 'unauthorized', 'not valid')
        }

        const revoked = await app.keyWithId()
        await app.storage.keys.revoke(revoked.id, app.clock.now(), testAudit('key.revoke'))
        await assertError(await call(app, revoked.key), 'unauthorized', 'revoked')

        const expiring = await app.key({ expiresAt: new Date(app.clock.now() + 60_000).toISOString() })
        assert.notEqual((await call(app, expiring)).status, 401)
        app.clock.advance(60_000)
        await assertError(await call(app, expiring), 'unauthorized', 'expired')
      })
    }

    test('a valid key works with any case of "Bearer"', async (t) => {
      const app = await startApp(t, { backend })
      const key = await app.key({ plan: 'pro' })
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        assert.equal((await app.fetch('/v1/pets', { headers: { authorization: `${scheme} ${key}` } })).status, 200)
      }
    })

    test('a revocation takes effect within the key cache TTL (under 5 s)', async (t) => {
      const app = await startApp(t, { backend })
      const { key, id } = await app.keyWithId({ plan: 'pro' })
      assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
      await app.storage.keys.revoke(id, app.clock.now(), testAudit('key.revoke'))
      // Cached for at most 2 s of the service's clock.
      app.clock.advance(2_000)
      await assertError(await app.fetch('/v1/pets', { key }), 'unauthorized', 'revoked')
    })

    test('the OpenAPI document, docs and health need no key', async (t) => {
      const app = await startApp(t, { backend })
      for (const path of ['/v1/openapi.json', '/docs', '/healthz', '/readyz']) {
        assert.equal((await app.fetch(path, { key: null })).status, 200, path)
      }
    })
  })
}
