import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ADMIN_OPERATIONS, type Key } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { assertOperatorError, readAdmin, sampleRequest } from '../helpers/operator-api.ts'

// One security matrix over every operation of the operator API (design.md §6), as the public
// API's auth matrix runs over every /v1 operation: no token, a bad one, an API key, a revoked
// operator, a viewer, an admin.

const CHALLENGE = 'Bearer realm="animal-store-admin"'
const BAD_TOKEN = `as_admin_${'0'.repeat(43)}`

// Each failed sign-in comes from an address of its own (TRUST_PROXY=1): the matrix must not meet the limit.
let nextAddress = 0
const from = () => ({ 'x-forwarded-for': `198.51.100.${(nextAddress++ % 250) + 1}` })

let plans = 0

/** A request for `op` on a fresh key and a fresh plan, with `authorization` (none when null). */
async function call(
  app: TestApp,
  op: (typeof ADMIN_OPERATIONS)[number],
  authorization: string | null
): Promise<{ response: Response; keyId: string }> {
  const { id } = await app.keyWithId({ plan: 'free', name: 'matrix' })
  const plan = `matrix-${plans++}`
  await app.services.plans.create({ id: plan, name: 'Matrix', limits: null }, { type: 'cli', id: 'test', name: 'test' })
  const customerId = (await app.storage.keys.get(id))!.customerId!
  const { path, init } = sampleRequest(op, { keyId: id, customerId, planId: plan })
  const headers = {
    ...(init.headers as Record<string, string> | undefined),
    ...from(),
    ...(authorization === null ? {} : { authorization })
  }
  return { response: await app.admin(path, { ...init, headers }), keyId: id }
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`operator API authentication and roles [${backend.name}]`, { skip }, () => {
    test('every operation: no token, a bad token, an API key, a revoked operator are 401; a viewer writes nothing; an admin may', async (t) => {
      const app = await startApp(t, { backend, admin: true, env: { TRUST_PROXY: '1' } })
      const admin = await app.operator('admin')
      const viewer = await app.operator('viewer')
      const gone = await app.operator('admin', 'gone')
      const goneId = (await app.services.operators.list()).find((o) => o.name === 'gone')!.id
      await app.services.operators.revoke(goneId, { type: 'cli', id: 'test', name: 'test' })
      const apiKey = await app.key()

      for (const op of ADMIN_OPERATIONS) {
        const what = `${op.operationId} (${op.method} ${op.path})`
        const none = (await call(app, op, null)).response
        assert.equal(none.headers.get('www-authenticate'), CHALLENGE, what)
        await assertOperatorError(none, 'unauthorized', 'missing')
        for (const [credential, reason] of [
          [`Bearer ${BAD_TOKEN}`, 'not valid'],
          [`Bearer ${apiKey}`, 'an API key is not an operator token'],
          [`Bearer ${gone}`, 'not valid']
        ] as const) {
          const { response } = await call(app, op, credential)
          assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="animal-store-admin", error="invalid_token"/, what)
          await assertOperatorError(response, 'unauthorized', reason)
        }

        const asViewer = await call(app, op, `Bearer ${viewer}`)
        if (op.role === 'viewer') assert.equal(asViewer.response.status, op.success.status, `${what} as a viewer`)
        else {
          const before = await app.services.keys.get(asViewer.keyId)
          const keysBefore = (await app.services.keys.list()).length
          await assertOperatorError(asViewer.response, 'forbidden', 'needs the admin role')
          assert.deepEqual(await app.services.keys.get(asViewer.keyId), before, `${what}: a viewer's write changed the key`)
          assert.equal((await app.services.keys.list()).length, keysBefore, `${what}: a viewer's write created a key`)
        }
        const asAdmin = (await call(app, op, `Bearer ${admin}`)).response
        const answer = await asAdmin.clone().text()
        assert.equal(asAdmin.status, op.success.status, `${what} as an admin: ${answer}`)
        // A secret is in the two answers that hand one out, and in no other.
        const issues = op.operationId === 'createKey' || op.operationId === 'rotateKey'
        assert.equal(/as_live_[0-9A-Za-z]{43}/.test(answer), issues, `${what}: a secret ${issues ? 'missing' : 'shown'}`)
        assert.doesNotMatch(answer, /as_admin_|[0-9a-f]{64}/, `${what}: a token or hash shown`)
        if (issues) recordIssuedKey((JSON.parse(answer) as { key: string }).key)
        assert.equal(asAdmin.headers.get('cache-control'), 'no-store', what)
        assert.ok(asAdmin.headers.get('x-request-id'), what)
      }
      // The 401s and 403s wrote no audit event: of the operators' requests, only the admin's writes did
      // (createKey with a plan also made the key's own customer).
      const byOperators = (await app.storage.audit.page({ limit: 1000 })).filter((event) => event.actor.type === 'operator')
      assert.deepEqual(byOperators.map((event) => event.action).sort(), [
        'customer.create',
        'customer.create',
        'customer.unban',
        'customer.update',
        'key.create',
        'key.revoke',
        'key.rotate',
        'key.unban',
        'key.update',
        'plan.create',
        'plan.delete',
        'plan.update'
      ])
    })

    test('the token and the key never cross: an operator token on /v1 is 401, /admin on the public port is 404', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const onPublic = await app.fetch('/v1/pets', { key: admin })
      assert.equal(onPublic.status, 401)
      assert.match(onPublic.headers.get('www-authenticate') ?? '', /^Bearer realm="animal-store", error="invalid_token"/)
      for (const path of ['/admin/v1/keys', '/admin/v1/me', '/admin/v1/openapi.json', '/admin']) {
        const response = await fetch(app.origin + path, { headers: { authorization: `Bearer ${admin}` } })
        assert.equal(response.status, 404, path)
        assert.equal(((await response.json()) as { code: string }).code, 'not_found', path)
      }
      // HEAD is a GET without its body: it needs a token as much.
      assert.equal((await app.admin('/admin/v1/keys', { method: 'HEAD' })).status, 401)
      assert.equal((await app.admin('/admin/v1/keys', { method: 'HEAD', token: admin })).status, 200)
      // The operator's own requests take no API quota: a Free key's use is untouched by reading it.
      const { id } = await app.keyWithId({ plan: 'free' })
      for (let i = 0; i < 3; i++) await readAdmin<Key>(app, `/admin/v1/keys/${id}`, admin)
      assert.deepEqual((await app.services.keys.get(id)).usage, { minute: 0, day: 0, month: 0 })
    })

    test('failed sign-ins: past 20 a minute from one address, every request from it is 429 until the minute ends', async (t) => {
      const app = await startApp(t, { backend, admin: true, env: { TRUST_PROXY: '1' } })
      const admin = await app.operator('admin')
      const as = (address: string, token: string | null) => app.admin('/admin/v1/me', { token, headers: { 'x-forwarded-for': address } })
      // Requests with no token at all guess nothing: they are not failed sign-ins.
      for (let i = 0; i < 25; i++) assert.equal((await as('203.0.113.7', null)).status, 401)
      for (let i = 0; i < 20; i++) assert.equal((await as('203.0.113.7', BAD_TOKEN)).status, 401, `failure ${i + 1}`)
      // Even the right token: the address is past its failures for this minute.
      const refused = await as('203.0.113.7', admin)
      assert.equal(refused.headers.get('retry-after'), '50', 'the clock stands 10 s into its minute')
      await assertOperatorError(refused, 'rate_limited', 'failed sign-ins')
      assert.equal((await as('203.0.113.8', admin)).status, 200, 'another address signs in')
      app.clock.advance(50_000)
      assert.equal((await as('203.0.113.7', admin)).status, 200, 'a new minute')
    })
  })
}
