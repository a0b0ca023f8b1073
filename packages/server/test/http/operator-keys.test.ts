import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Key, KeyWithSecret } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { nextLink } from '../helpers/links.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { assertOperatorError, createKeyAs, readAdmin, sendAdmin } from '../helpers/operator-api.ts'

const SECRET = /as_live_[0-9A-Za-z]{43}/

/** Every key as the store holds it now: what a refused request must leave as it was. */
const snapshot = async (app: TestApp) => JSON.stringify(await app.storage.keys.list())

for (const { backend, skip } of await suiteBackends()) {
  describe(`operator API: keys [${backend.name}]`, { skip }, () => {
    test('createKey answers the secret once; bad input is 400 and creates nothing', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const key = await createKeyAs(app, admin, { plan: 'pro', name: 'Acme', expiresAt: '2030-01-01T01:00:00+01:00' })
      assert.match(key.key, SECRET)
      assert.deepEqual(
        { ...key, id: '', key: '', prefix: key.prefix.slice(0, 8), customerId: key.customerId.slice(0, 4) },
        {
          id: '',
          key: '',
          prefix: 'as_live_',
          name: 'Acme',
          customerId: 'cus_',
          plan: 'pro',
          limits: { perMinute: 300, perDay: 10000, perMonth: null },
          scopes: ['pets:read', 'pets:write'],
          createdAt: '2026-06-15T12:00:10.000Z',
          expiresAt: '2030-01-01T00:00:00.000Z',
          revokedAt: null,
          previousSecretExpiresAt: null,
          bannedUntil: null,
          usage: { minute: 0, day: 0, month: 0 },
          lastUsedAt: null
        }
      )
      assert.equal((await app.fetch('/v1/pets', { key: key.key })).status, 200, 'the secret works at once')
      assert.doesNotMatch(JSON.stringify(await readAdmin<Key>(app, `/admin/v1/keys/${key.id}`, admin)), SECRET, 'getKey shows no secret')

      const before = await snapshot(app)
      for (const [body, code, words] of [
        [{}, 'validation_failed', 'give customerId, or plan'],
        [{ plan: 'gold' }, 'validation_failed', 'plan must be one of'],
        [{ plan: 'enterprise' }, 'validation_failed', 'needs both perMinute and perDay'],
        [{ plan: 'free', perMinute: 0 }, 'validation_failed', 'perMinute'],
        [{ plan: 'free', owner: 'x' }, 'validation_failed', 'unknown property "owner"'],
        [{ plan: 'free', expiresAt: '2020-01-01T00:00:00Z' }, 'validation_failed', 'must be in the future'],
        [{ plan: 'free', name: 'a\u0007b' }, 'validation_failed', 'name'],
        ['{"plan":', 'bad_request', 'not valid JSON'],
        ['[]', 'bad_request', 'JSON object']
      ] as const) {
        await assertOperatorError(await sendAdmin(app, 'POST', '/admin/v1/keys', admin, body), code, words)
      }
      await assertOperatorError(
        await app.admin('/admin/v1/keys', { token: admin, method: 'POST', body: '{"plan":"free"}' }),
        'unsupported_media_type'
      )
      assert.equal(await snapshot(app), before, 'no refused create changed anything')
    })

    test('getKey and the changes: unknown or malformed ids are 404; bad input is 400 and changes nothing', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const { id } = await createKeyAs(app, admin, { plan: 'free', name: 'shop', perMinute: 7 })
      for (const bad of ['key_AAAAAAAAAAAAAAAA', 'nope', 'key_%E2%82%AC', 'x'.repeat(500)]) {
        await assertOperatorError(await app.admin(`/admin/v1/keys/${bad}`, { token: admin }), 'not_found')
        await assertOperatorError(await sendAdmin(app, 'PATCH', `/admin/v1/keys/${bad}`, admin, { name: 'x' }), 'not_found')
        for (const action of ['rotate', 'revoke', 'unban', 'usage']) {
          const response =
            action === 'usage'
              ? await app.admin(`/admin/v1/keys/${bad}/usage`, { token: admin })
              : await sendAdmin(app, 'POST', `/admin/v1/keys/${bad}/${action}`, admin)
          await assertOperatorError(response, 'not_found')
        }
      }
      const before = await snapshot(app)
      for (const [body, words] of [
        [{}, 'nothing to change'],
        [{ perMinute: -1 }, 'perMinute'],
        [{ plan: 'enterprise' }, 'needs both perMinute and perDay'],
        [{ expiresAt: 'tomorrow' }, 'expiresAt'],
        [{ expiresAt: '2030-02-30T00:00:00Z' }, 'expiresAt'],
        [{ secret: 'x' }, 'unknown property']
      ] as const) {
        await assertOperatorError(await sendAdmin(app, 'PATCH', `/admin/v1/keys/${id}`, admin, body), 'validation_failed', words)
      }
      for (const grace of [-1, 1.5, 2_592_001, '60']) {
        await assertOperatorError(
          await sendAdmin(app, 'POST', `/admin/v1/keys/${id}/rotate`, admin, { graceSeconds: grace }),
          'validation_failed',
          'graceSeconds'
        )
      }
      assert.equal(await snapshot(app), before, 'no refused change changed anything')

      const updated = await sendAdmin(app, 'PATCH', `/admin/v1/keys/${id}`, admin, { plan: 'business', expiresAt: null, name: 'shop 2' })
      const key = (await updated.json()) as Key
      assert.deepEqual(
        [key.plan, key.limits, key.name, key.expiresAt],
        ['business', { perMinute: 1000, perDay: 100000, perMonth: null }, 'shop 2', null]
      )
      assert.doesNotMatch(JSON.stringify(key), SECRET)
    })

    test('rotateKey: no body means a day of grace; the new secret works at once, the old one until the grace ends', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const first = await createKeyAs(app, admin, { plan: 'free' })
      const response = await app.admin(`/admin/v1/keys/${first.id}/rotate`, { token: admin, method: 'POST' })
      const rotated = (await response.json()) as KeyWithSecret
      recordIssuedKey(rotated.key)
      assert.equal(response.status, 200)
      assert.equal(rotated.previousSecretExpiresAt, '2026-06-16T12:00:10.000Z')
      assert.notEqual(rotated.key, first.key)
      assert.equal((await app.fetch('/v1/pets', { key: rotated.key })).status, 200)
      assert.equal((await app.fetch('/v1/pets', { key: first.key })).status, 200, 'the old secret, within its grace')
      const again = (await (
        await sendAdmin(app, 'POST', `/admin/v1/keys/${first.id}/rotate`, admin, { graceSeconds: 0 })
      ).json()) as KeyWithSecret
      recordIssuedKey(again.key)
      assert.equal((await app.fetch('/v1/pets', { key: rotated.key })).status, 401, 'a grace of 0 ends the replaced secret at once')
    })

    test('revokeKey: the instance that answered refuses the key on the very next request', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin')
      const key = await createKeyAs(app, admin, { plan: 'pro' })
      assert.equal((await app.fetch('/v1/pets', { key: key.key })).status, 200)
      assert.equal((await app.fetch('/v1/pets', { key: key.key })).status, 200, 'now in the key cache')
      const revoked = (await (await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/revoke`, admin)).json()) as Key
      assert.equal(revoked.revokedAt, '2026-06-15T12:00:10.000Z')
      assert.equal((await app.fetch('/v1/pets', { key: key.key })).status, 401)
      app.clock.advance(5_000)
      const again = (await (await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/revoke`, admin)).json()) as Key
      assert.equal(again.revokedAt, revoked.revokedAt, 'revoking again keeps the first time')
      await assertOperatorError(
        await sendAdmin(app, 'PATCH', `/admin/v1/keys/${key.id}`, admin, { name: 'x' }),
        'validation_failed',
        'revoked'
      )
      await assertOperatorError(await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/rotate`, admin), 'validation_failed', 'revoked')
    })

    test('listKeys: newest first, search in any case, plan and state filters, keyset pages with a next link', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('viewer')
      const writer = await app.operator('admin')
      const make = async (body: object) => {
        app.clock.advance(1000)
        return createKeyAs(app, writer, body)
      }
      await make({ plan: 'pro', name: 'Äpfel Shop' })
      const beta = await make({ plan: 'free', name: 'beta' })
      await make({ plan: 'free', name: 'expiring', expiresAt: new Date(app.clock.now() + 60_000).toISOString() })
      const gone = await make({ plan: 'business', name: 'gone' })
      const hot = await make({ plan: 'enterprise', perMinute: 1, perDay: 100, name: 'hot' })
      await sendAdmin(app, 'POST', `/admin/v1/keys/${gone.id}/revoke`, writer)
      for (let i = 0; i < 3; i++) await app.fetch('/v1/pets', { key: hot.key })
      app.clock.advance(60_000)
      const names = async (query: string) => (await readAdmin<Key[]>(app, `/admin/v1/keys${query}`, admin)).map((k) => k.name)

      assert.deepEqual(await names(''), ['hot', 'gone', 'expiring', 'beta', 'Äpfel Shop'])
      assert.deepEqual(await names('?search=%C3%A4PFEL'), ['Äpfel Shop'], 'a name in any case, beyond ASCII')
      assert.deepEqual(await names(`?search=${beta.id.slice(4, 12).toLowerCase()}`), ['beta'], 'part of an id, in any case')
      assert.deepEqual(await names(`?search=${beta.prefix.toUpperCase()}`), ['beta'], 'the prefix')
      assert.deepEqual(await names('?plan=free'), ['expiring', 'beta'])
      assert.deepEqual(await names('?state=revoked'), ['gone'])
      assert.deepEqual(await names('?state=expired'), ['expiring'])
      assert.deepEqual(await names('?state=banned'), ['hot'])
      assert.deepEqual(await names('?state=active'), ['beta', 'Äpfel Shop'])
      assert.deepEqual(await names('?state=active&plan=pro&search=shop'), ['Äpfel Shop'])
      assert.deepEqual(await names('?search=nothing-like-it'), [])

      const seen: string[] = []
      for (let url: string | undefined = '/admin/v1/keys?limit=2'; url !== undefined;) {
        const response = await app.admin(url, { token: admin })
        seen.push(...((await response.json()) as Key[]).map((k) => k.name!))
        const next = nextLink(response)
        assert.ok(next === undefined || next.startsWith(`${app.adminOrigin}/admin/v1/keys?limit=2&cursor=`), next)
        url = next?.slice(app.adminOrigin.length)
      }
      assert.deepEqual(seen, ['hot', 'gone', 'expiring', 'beta', 'Äpfel Shop'], 'every key once, across three pages')

      const first = await app.admin('/admin/v1/keys?limit=1&plan=free', { token: admin })
      const cursor = new URL(nextLink(first)!).searchParams.get('cursor')!
      await assertOperatorError(
        await app.admin(`/admin/v1/keys?limit=1&plan=pro&cursor=${cursor}`, { token: admin }),
        'invalid_cursor',
        'other filters'
      )
      for (const bad of ['abc', 'a%2Fb', 'x'.repeat(300), Buffer.from('k:zzzz:1:key_x').toString('base64url')]) {
        await assertOperatorError(await app.admin(`/admin/v1/keys?cursor=${bad}`, { token: admin }), 'invalid_cursor')
      }
      for (const query of ['limit=0', 'limit=101', 'limit=1.0', 'limit=', 'state=dead', 'plan=Gold', 'sort=name', 'limit=1&limit=2']) {
        await assertOperatorError(await app.admin(`/admin/v1/keys?${query}`, { token: admin }), 'validation_failed')
      }
    })
  })
}
