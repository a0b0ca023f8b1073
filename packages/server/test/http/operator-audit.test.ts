import assert from 'node:assert/strict'
import { userInfo } from 'node:os'
import { describe, test } from 'node:test'
import type { AuditEvent, KeyWithSecret } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { nextLink } from '../helpers/links.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { assertOperatorError, readAdmin, sendAdmin } from '../helpers/operator-api.ts'

/** What an event says, without its id, time and request id: who, what, on which key, which changes, from where. */
const gist = (event: AuditEvent) => ({
  actor: `${event.actor.type}:${event.actor.name}`,
  action: event.action,
  target: event.target.id,
  changes: event.changes,
  from: [event.remoteAddress, event.userAgent]
})

/** Every audit event, newest first, through the API. */
const everything = (app: TestApp, token: string) => readAdmin<AuditEvent[]>(app, '/admin/v1/audit?limit=100', token)

/** Asserts no secret, token or hash appears in the text. */
function assertNoSecret(text: string, secrets: string[], what: string): void {
  for (const secret of secrets)
    assert.ok(!text.includes(secret) && !text.includes(secret.replace(/^as_[a-z]+_/, '')), `${what} holds a secret`)
  assert.doesNotMatch(text, /[0-9a-f]{64}/, `${what} holds something shaped like a SHA-256 hash`)
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`operator API: audit log [${backend.name}]`, { skip }, () => {
    test('create, update, rotate, revoke and unban through the API are audited with the operator, the changes and the request', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const admin = await app.operator('admin', 'Dana (support)')
      const secrets = [admin]
      const headers = { 'user-agent': 'console-test/1.0', 'x-request-id': 'req-audit-1' }
      const create = await app.admin('/admin/v1/keys', {
        token: admin,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'free', name: 'Acme', perMinute: 100 })
      })
      const key = (await create.json()) as KeyWithSecret
      secrets.push(key.key)
      recordIssuedKey(key.key)
      await sendAdmin(app, 'PATCH', `/admin/v1/keys/${key.id}`, admin, { plan: 'pro', name: 'Acme Inc', expiresAt: '2030-01-01T00:00:00Z' })
      const rotated = (await (
        await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/rotate`, admin, { graceSeconds: 0 })
      ).json()) as KeyWithSecret
      secrets.push(rotated.key)
      recordIssuedKey(rotated.key)
      await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/unban`, admin)
      await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/revoke`, admin)
      await sendAdmin(app, 'POST', `/admin/v1/keys/${key.id}/revoke`, admin)

      const events = await everything(app, admin)
      const local = ['127.0.0.1', 'node']
      assert.deepEqual(events.map(gist), [
        { actor: 'operator:Dana (support)', action: 'key.revoke', target: key.id, changes: {}, from: local },
        { actor: 'operator:Dana (support)', action: 'key.unban', target: key.id, changes: {}, from: local },
        { actor: 'operator:Dana (support)', action: 'key.rotate', target: key.id, changes: {}, from: local },
        {
          actor: 'operator:Dana (support)',
          action: 'customer.update',
          target: key.customerId,
          changes: { plan: { from: 'free', to: 'pro' }, perMinute: { from: 100, to: null } },
          from: local
        },
        {
          actor: 'operator:Dana (support)',
          action: 'key.update',
          target: key.id,
          changes: {
            plan: { from: 'free', to: 'pro' },
            name: { from: 'Acme', to: 'Acme Inc' },
            perMinute: { from: 100, to: null },
            expiresAt: { from: null, to: '2030-01-01T00:00:00.000Z' }
          },
          from: local
        },
        { actor: 'operator:Dana (support)', action: 'key.create', target: key.id, changes: {}, from: ['127.0.0.1', 'console-test/1.0'] },
        // A key made with a plan gets a customer of its own, in the same transaction.
        {
          actor: 'operator:Dana (support)',
          action: 'customer.create',
          target: key.customerId,
          changes: {},
          from: ['127.0.0.1', 'console-test/1.0']
        },
        { actor: 'cli:test', action: 'operator.create', target: events.at(-1)!.target.id, changes: {}, from: [null, null] }
      ])
      assert.equal(events[5]!.requestId, 'req-audit-1', 'the request id the operator sent')
      assert.equal(events[5]!.actor.id, (await app.services.operators.list())[0]!.id)
      assert.equal(events[5]!.target.name, 'Acme')
      assert.equal(events[6]!.target.name, 'Acme', "the key's own customer is named after it")
      assert.ok(
        events.every((event, i) => i === 0 || BigInt(event.id) < BigInt(events[i - 1]!.id)),
        'newest first'
      )
      assertNoSecret(JSON.stringify(events), secrets, 'the audit log')
      assertNoSecret(JSON.stringify(await app.storage.audit.page({ limit: 100 })), secrets, 'the audit table')
    })

    test('changes made at the CLI are audited as its OS user; filters and pages select them', async (t) => {
      const app = await startApp(t, { backend, admin: true })
      const viewer = await app.operator('viewer', 'Vic')
      const env = app.backendEnv
      const created = JSON.parse(
        (await runCli(['keys', 'create', '--plan', 'free', '--name', 'cli key', '--json'], env)).stdout
      ) as KeyWithSecret
      for (const args of [
        ['keys', 'update', created.id, '--per-day', '500'],
        ['keys', 'rotate', created.id, '--grace', '0'],
        ['keys', 'unban', created.id],
        ['keys', 'revoke', created.id]
      ]) {
        const result = await runCli(args, env)
        assert.equal(result.code, 0, result.stderr)
      }
      const user = userInfo().username
      const byCli = await readAdmin<AuditEvent[]>(app, `/admin/v1/audit?actor=${encodeURIComponent(user)}&target=${created.id}`, viewer)
      assert.deepEqual(
        byCli.map((event) => [event.actor, event.action, event.changes, event.requestId, event.remoteAddress, event.userAgent]),
        [
          [{ type: 'cli', id: user, name: user }, 'key.revoke', {}, null, null, null],
          [{ type: 'cli', id: user, name: user }, 'key.unban', {}, null, null, null],
          [{ type: 'cli', id: user, name: user }, 'key.rotate', {}, null, null, null],
          [{ type: 'cli', id: user, name: user }, 'key.update', { perDay: { from: null, to: 500 } }, null, null, null],
          [{ type: 'cli', id: user, name: user }, 'key.create', {}, null, null, null]
        ]
      )
      const only = (query: string) => readAdmin<AuditEvent[]>(app, `/admin/v1/audit?${query}`, viewer)
      assert.deepEqual(
        (await only('action=key.rotate')).map((e) => e.target.id),
        [created.id]
      )
      assert.deepEqual(
        (await only('actor=Vic')).map((e) => e.action),
        [],
        'a viewer changed nothing'
      )
      assert.deepEqual(
        (await only('actor=test&action=operator.create')).map((e) => e.target.name),
        ['Vic']
      )
      assert.deepEqual(await only('from=2000-01-01T00:00:00Z&to=2001-01-01T00:00:00Z'), [])

      const pages: string[][] = []
      for (let url: string | undefined = `/admin/v1/audit?target=${created.id}&limit=2`; url !== undefined;) {
        const response = await app.admin(url, { token: viewer })
        pages.push(((await response.json()) as AuditEvent[]).map((e) => e.action))
        url = nextLink(response)?.slice(app.adminOrigin.length)
      }
      assert.deepEqual(pages, [['key.revoke', 'key.unban'], ['key.rotate', 'key.update'], ['key.create']])
      const cursor = new URL(nextLink(await app.admin(`/admin/v1/audit?limit=1`, { token: viewer }))!).searchParams.get('cursor')!
      await assertOperatorError(
        await app.admin(`/admin/v1/audit?limit=1&action=key.create&cursor=${cursor}`, { token: viewer }),
        'invalid_cursor'
      )
      for (const query of [
        'action=key.delete',
        'from=monday',
        'to=2026-06-15T24:00:00Z',
        'limit=0',
        'who=me',
        `target=${'x'.repeat(65)}`
      ]) {
        await assertOperatorError(await app.admin(`/admin/v1/audit?${query}`, { token: viewer }), 'validation_failed')
      }
    })
  })
}
