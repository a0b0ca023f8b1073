import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { ManualClock } from '../../src/base/clock.ts'
import { compose } from '../../src/compose.ts'
import { loadConfig } from '../../src/config.ts'
import type { Actor } from '../../src/domain/actor.ts'
import type { CreateKeyInput, UpdateKeyInput } from '../../src/domain/keys/changes.ts'
import { KeyInputError, KeyNotFoundError, KeyRevokedError, type KeyField } from '../../src/domain/keys/errors.ts'
import type { KeyService } from '../../src/domain/keys/service.ts'
import { suiteBackends, type Backend } from '../helpers/backends.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { defer } from '../helpers/temp.ts'

// The key service itself, as the CLI and the operator API call it: no HTTP, no process, the
// real store of each backend. Every refusal is checked by its kind, not by its words alone.

const NOW = Date.parse('2026-06-15T12:00:10Z')
const ALICE: Actor = { type: 'operator', id: 'op_alice', name: 'alice' }
const UNKNOWN_ID = 'key_AAAAAAAAAAAAAAAA'

async function keyService(t: TestContext, backend: Backend): Promise<{ keys: KeyService; clock: ManualClock }> {
  const clock = new ManualClock(NOW)
  const services = await compose(loadConfig(await backend.environment(t)), { role: 'cli', clock })
  defer(t, () => services.close())
  return { keys: services.keys, clock }
}

/** The error `operation` rejects with, asserted to be of `kind`. */
async function refusal<E extends Error>(operation: Promise<unknown>, kind: new (...args: never[]) => E, what: string): Promise<E> {
  const error = await operation.then(
    () => undefined,
    (caught: unknown) => caught
  )
  assert.ok(error instanceof kind, `${what}: expected a ${kind.name}, got ${String(error)}`)
  return error
}

async function refusedInput(operation: Promise<unknown>, field: KeyField | null, message: RegExp, what: string): Promise<void> {
  const error = await refusal(operation, KeyInputError, what)
  assert.equal(error.field, field, what)
  assert.match(error.message, message, what)
}

async function created(keys: KeyService, input: CreateKeyInput): Promise<string> {
  const { key, view } = await keys.create(input, ALICE)
  recordIssuedKey(key)
  return view.id
}

const CREATE_REFUSALS: Array<[string, CreateKeyInput, KeyField, RegExp]> = [
  ['unknown plan', { plan: 'gold' }, 'plan', /^plan must be one of business, enterprise, free, pro \(got "gold"\)$/],
  [
    'enterprise without numbers',
    { plan: 'enterprise' },
    'perMinute',
    /^a key on the custom plan enterprise needs both perMinute and perDay \(its customer's own numbers\)$/
  ],
  ['enterprise without perDay', { plan: 'enterprise', perMinute: 10 }, 'perDay', /needs both perMinute and perDay/],
  ['perMinute 0', { plan: 'free', perMinute: 0 }, 'perMinute', /^perMinute must be a whole number of at least 1 \(got 0\)$/],
  ['perMinute -1', { plan: 'free', perMinute: -1 }, 'perMinute', /^perMinute must be a whole number of at least 1 \(got -1\)$/],
  ['perMinute 1.5', { plan: 'free', perMinute: 1.5 }, 'perMinute', /^perMinute must be a whole number of at least 1 \(got 1\.5\)$/],
  ['perDay NaN', { plan: 'free', perDay: Number.NaN }, 'perDay', /^perDay must be a whole number of at least 1 \(got NaN\)$/],
  [
    'perMinute huge',
    { plan: 'free', perMinute: 2 ** 53 },
    'perMinute',
    /^perMinute must be at most 9007199254740991 \(got 9007199254740992\)$/
  ],
  ['perDay infinite', { plan: 'free', perDay: Number.POSITIVE_INFINITY }, 'perDay', /^perDay must be a whole number/],
  [
    'expiresAt malformed',
    { plan: 'free', expiresAt: 'tomorrow' },
    'expiresAt',
    /^expiresAt must be an ISO 8601 date-time .*\(got "tomorrow"\)$/
  ],
  ['expiresAt without an offset', { plan: 'free', expiresAt: '2030-01-01T00:00:00' }, 'expiresAt', /with a UTC offset/],
  ['expiresAt not a real day', { plan: 'free', expiresAt: '2030-02-30T00:00:00Z' }, 'expiresAt', /^expiresAt names no real date and time/],
  ['expiresAt hour 24', { plan: 'free', expiresAt: '2030-01-01T24:00:00Z' }, 'expiresAt', /names no real date and time/],
  ['expiresAt in the past', { plan: 'free', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt', /^expiresAt must be in the future/],
  ['expiresAt now', { plan: 'free', expiresAt: new Date(NOW).toISOString() }, 'expiresAt', /must be in the future/],
  ['name too long', { plan: 'free', name: 'x'.repeat(201) }, 'name', /^name must be at most 200 characters with no control characters$/],
  ['name with a control character', { plan: 'free', name: 'a\u0007b' }, 'name', /^name must be at most 200 characters/],
  ['name with a lone surrogate', { plan: 'free', name: 'a\ud800b' }, 'name', /^name must be valid Unicode/]
]

for (const { backend, skip } of await suiteBackends()) {
  describe(`KeyService on ${backend.name}`, { skip }, () => {
    test('create: the key, its view and the event the audit log records', async (t) => {
      const { keys } = await keyService(t, backend)
      const issued = await keys.create({ plan: 'pro', name: 'shop', perMinute: 7, expiresAt: '2030-01-01T01:00:00+01:00' }, ALICE)
      recordIssuedKey(issued.key)
      assert.match(issued.key, /^as_live_[0-9A-Za-z]{43}$/)
      assert.ok(issued.key.startsWith(issued.view.prefix))
      assert.equal(issued.view.name, 'shop')
      assert.deepEqual(issued.view.limits, { perMinute: 7, perDay: 10_000, perMonth: null })
      assert.equal(issued.view.expiresAt, '2030-01-01T00:00:00.000Z')
      assert.deepEqual(issued.event, {
        action: 'key.create',
        actor: ALICE,
        target: { type: 'key', id: issued.view.id, name: 'shop' },
        changes: {},
        at: '2026-06-15T12:00:10.000Z'
      })
      assert.deepEqual(await keys.get(issued.view.id), issued.view)
      assert.deepEqual(await keys.list(), [issued.view])
      // Names count characters, not UTF-16 units; a date alone is its midnight UTC.
      const emoji = await keys.create(
        { plan: 'enterprise', perMinute: 5, perDay: 9, name: '🐈'.repeat(200), expiresAt: '2030-01-01' },
        ALICE
      )
      recordIssuedKey(emoji.key)
      assert.equal(emoji.view.name, '🐈'.repeat(200))
      assert.equal(emoji.view.expiresAt, '2030-01-01T00:00:00.000Z')
    })

    test('create refuses each bad field by name, and creates nothing', async (t) => {
      const { keys } = await keyService(t, backend)
      for (const [what, input, field, message] of CREATE_REFUSALS) await refusedInput(keys.create(input, ALICE), field, message, what)
      assert.deepEqual(await keys.list(), [])
    })

    test('a refusal names its terms in the caller’s words', async (t) => {
      const { keys } = await keyService(t, backend)
      const id = await created(keys, { plan: 'free' })
      const error = await refusal(keys.update(id, {}, ALICE), KeyInputError, 'nothing to change')
      assert.equal(error.field, null)
      assert.equal(error.message, 'nothing to change: give plan, perMinute, perDay, name, scopes, expiresAt or expiresAt: null')
      assert.equal(
        error.describe((term) => `<${term}>`),
        'nothing to change: give <plan>, <perMinute>, <perDay>, <name>, <scopes>, <expiresAt> or <noExpiry>'
      )
    })

    test('every operation on an unknown id is KeyNotFoundError', async (t) => {
      const { keys } = await keyService(t, backend)
      for (const id of [UNKNOWN_ID, 'nope', '', 'key_\u0000AAAAAAAAAAAAAAA', 'x'.repeat(5000)]) {
        const operations: Array<[string, () => Promise<unknown>]> = [
          ['get', () => keys.get(id)],
          ['update', () => keys.update(id, { plan: 'pro' }, ALICE)],
          ['update with bad input', () => keys.update(id, { plan: 'gold' }, ALICE)],
          ['rotate', () => keys.rotate(id, {}, ALICE)],
          ['usage', () => keys.usage(id)],
          ['revoke', () => keys.revoke(id, ALICE)],
          ['unban', () => keys.unban(id, ALICE)]
        ]
        for (const [what, operation] of operations) {
          const error = await refusal(operation(), KeyNotFoundError, what)
          assert.equal(error.id, id)
          assert.ok(error.message.startsWith('no key has id "'), error.message)
          assert.ok(error.message.length < 200, 'a long id is shortened in the message')
        }
      }
    })

    test('update refuses bad input and changes nothing', async (t) => {
      const { keys } = await keyService(t, backend)
      const id = await created(keys, { plan: 'pro', name: 'shop', perMinute: 7, expiresAt: '2099-01-01T00:00:00Z' })
      const before = await keys.get(id)
      const cases: Array<[string, UpdateKeyInput, KeyField | null, RegExp]> = [
        ['nothing to change', {}, null, /^nothing to change/],
        ['only absent fields', { plan: undefined, name: undefined }, null, /^nothing to change/],
        ['unknown plan', { plan: 'gold', name: 'renamed' }, 'plan', /^plan must be one of/],
        ['enterprise without numbers', { plan: 'enterprise' }, 'perMinute', /needs both perMinute and perDay/],
        ['enterprise with one number', { plan: 'enterprise', perMinute: 10 }, 'perDay', /needs both perMinute and perDay/],
        ['perMinute 0', { perMinute: 0 }, 'perMinute', /^perMinute must be a whole number of at least 1/],
        ['perDay 1.5 beside a good name', { name: 'fine', perDay: 1.5 }, 'perDay', /^perDay must be a whole number/],
        ['expiresAt in the past', { expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt', /^expiresAt must be in the future/],
        ['expiresAt malformed', { expiresAt: 'soon' }, 'expiresAt', /^expiresAt must be an ISO 8601/],
        ['name with a control character', { name: 'a\nb' }, 'name', /^name must be at most 200 characters/]
      ]
      for (const [what, input, field, message] of cases) {
        await refusedInput(keys.update(id, input, ALICE), field, message, what)
        assert.deepEqual(await keys.get(id), before, `${what} changed nothing`)
      }
    })

    test('update: a new plan drops overrides, expiresAt null removes the expiry; the event holds each change', async (t) => {
      const { keys, clock } = await keyService(t, backend)
      const id = await created(keys, { plan: 'pro', name: 'shop', perMinute: 7, expiresAt: '2099-01-01T00:00:00Z' })
      clock.advance(1000)
      const moved = await keys.update(id, { plan: 'business', expiresAt: null }, ALICE)
      assert.equal(moved.view.plan, 'business')
      assert.deepEqual(moved.view.limits, { perMinute: 1000, perDay: 100_000, perMonth: null })
      assert.equal(moved.view.expiresAt, null)
      assert.deepEqual(moved.event, {
        action: 'key.update',
        actor: ALICE,
        target: { type: 'key', id, name: 'shop' },
        changes: {
          plan: { from: 'pro', to: 'business' },
          perMinute: { from: 7, to: null },
          expiresAt: { from: '2099-01-01T00:00:00.000Z', to: null }
        },
        at: '2026-06-15T12:00:11.000Z'
      })
      assert.deepEqual(await keys.get(id), moved.view)
      const renamed = await keys.update(id, { name: 'shop two', perDay: 5 }, ALICE)
      assert.deepEqual(renamed.event.changes, { name: { from: 'shop', to: 'shop two' }, perDay: { from: null, to: 5 } })
      assert.equal(renamed.event.target.name, 'shop two')
      assert.deepEqual((await keys.update(id, { name: 'shop two' }, ALICE)).event.changes, {}, 'the same value again changes nothing')
      const enterprise = await keys.update(id, { plan: 'enterprise', perMinute: 5000, perDay: 9000 }, ALICE)
      assert.deepEqual(enterprise.view.limits, { perMinute: 5000, perDay: 9000, perMonth: null })
    })

    test('rotate: unknown, revoked and bad grace refused; the default grace is a day', async (t) => {
      const { keys, clock } = await keyService(t, backend)
      const id = await created(keys, { plan: 'free' })
      const before = await keys.get(id)
      for (const graceSeconds of [-1, 1.5, 2_592_001, Number.NaN]) {
        await refusedInput(
          keys.rotate(id, { graceSeconds }, ALICE),
          'graceSeconds',
          /^graceSeconds must be a whole number of seconds from 0 to 2592000/,
          `grace ${graceSeconds}`
        )
      }
      assert.deepEqual(await keys.get(id), before, 'a refused rotation changed nothing')
      const rotated = await keys.rotate(id, {}, ALICE)
      recordIssuedKey(rotated.key)
      assert.ok(rotated.key.startsWith(rotated.view.prefix))
      assert.notEqual(rotated.view.prefix, before.prefix)
      assert.equal(rotated.view.previousSecretExpiresAt, new Date(NOW + 86_400_000).toISOString())
      assert.deepEqual(rotated.event, {
        action: 'key.rotate',
        actor: ALICE,
        target: { type: 'key', id, name: null },
        changes: {},
        at: '2026-06-15T12:00:10.000Z'
      })
      const ended = await keys.rotate(id, { graceSeconds: 0 }, ALICE)
      recordIssuedKey(ended.key)
      assert.equal(ended.view.previousSecretExpiresAt, new Date(NOW).toISOString(), 'grace 0 ends the old secret now')
      clock.advance(1)
      await keys.revoke(id, ALICE)
      const error = await refusal(keys.rotate(id, {}, ALICE), KeyRevokedError, 'rotate a revoked key')
      assert.equal(error.id, id)
      assert.match(error.message, /is revoked; a revoked key cannot be rotated/)
    })

    test('revoke: once changes the key, twice succeeds and changes nothing; a revoked key cannot be updated', async (t) => {
      const { keys, clock } = await keyService(t, backend)
      const id = await created(keys, { plan: 'free', name: 'gone' })
      const first = await keys.revoke(id, ALICE)
      assert.equal(first.view.revokedAt, new Date(NOW).toISOString())
      assert.deepEqual(first.event, {
        action: 'key.revoke',
        actor: ALICE,
        target: { type: 'key', id, name: 'gone' },
        changes: {},
        at: first.view.revokedAt
      })
      clock.advance(60_000)
      const again = await keys.revoke(id, { type: 'cli', id: 'bob', name: 'bob' })
      assert.equal(again.event, null, 'nothing changed, so nothing to record')
      assert.equal(again.view.revokedAt, first.view.revokedAt, 'the first revocation time stays')
      const before = await keys.get(id)
      const error = await refusal(keys.update(id, { plan: 'pro' }, ALICE), KeyRevokedError, 'update a revoked key')
      assert.match(error.message, /is revoked; a revoked key cannot be changed/)
      assert.deepEqual(await keys.get(id), before)
    })

    test('unban: a key that is not banned succeeds; usage and get answer for the key', async (t) => {
      const { keys } = await keyService(t, backend)
      const id = await created(keys, { plan: 'free' })
      const unbanned = await keys.unban(id, ALICE)
      assert.equal(unbanned.view.bannedUntil, null)
      assert.equal(unbanned.event.action, 'key.unban')
      const usage = await keys.usage(id)
      assert.equal(usage.id, id)
      assert.equal(usage.plan, 'free')
      assert.deepEqual(
        usage.limits.map((w) => [w.window, w.limit, w.remaining]),
        [
          ['minute', 60, 60],
          ['day', 1000, 1000]
        ]
      )
    })
  })
}
