import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Key } from '@animal-store/contract'
import { EMPTY_KEY_FORM, formOf, newKeyOf, patchOf } from '../src/key-form-values.ts'

const KEY: Key = {
  id: 'key_7Hq2LmX9pR4sT1vW',
  prefix: 'as_live_3fK9',
  name: 'Acme',
  plan: 'free',
  limits: { perMinute: 60, perDay: 1000 },
  createdAt: '2026-10-01T09:30:00.000Z',
  expiresAt: null,
  revokedAt: null,
  previousSecretExpiresAt: null,
  bannedUntil: null,
  usage: { minute: 0, day: 0 },
  lastUsedAt: null
}

test('a new key sends only what was filled in', () => {
  assert.deepEqual(newKeyOf(EMPTY_KEY_FORM, 'utc'), { plan: 'free' })
  assert.deepEqual(
    newKeyOf({ plan: 'enterprise', name: ' Big ', perMinute: '5000', perDay: '1000000', expiresAt: '2027-01-01T00:00' }, 'utc'),
    { plan: 'enterprise', name: 'Big', perMinute: 5000, perDay: 1000000, expiresAt: '2027-01-01T00:00:00.000Z' }
  )
  assert.equal(newKeyOf({ ...EMPTY_KEY_FORM, perMinute: '1.5' }, 'utc'), 'Per minute must be a whole number of at least 1.')
  assert.equal(newKeyOf({ ...EMPTY_KEY_FORM, perDay: '0' }, 'utc'), 'Per day must be a whole number of at least 1.')
})

// Enterprise is custom (limits: null), as seeded: its keys carry their own numbers.
const isCustom = (plan: string) => plan === 'enterprise' || plan === 'startup-custom'

test('an edit sends what changed: a new plan alone lets the plan bring its numbers', () => {
  const form = formOf(KEY, 'utc')
  assert.deepEqual(form, { plan: 'free', name: 'Acme', perMinute: '60', perDay: '1000', expiresAt: '' })
  assert.deepEqual(patchOf(KEY, { ...form, plan: 'pro' }, 'utc', isCustom), { plan: 'pro' })
  assert.deepEqual(patchOf(KEY, { ...form, plan: 'enterprise' }, 'utc', isCustom), { plan: 'enterprise', perMinute: 60, perDay: 1000 })
  assert.deepEqual(patchOf(KEY, { ...form, perDay: '5000', expiresAt: '2027-01-01T00:00' }, 'utc', isCustom), {
    perDay: 5000,
    expiresAt: '2027-01-01T00:00:00.000Z'
  })
  assert.equal(patchOf(KEY, form, 'utc', isCustom), 'Nothing was changed.')
  // A plan created as custom (plans are data) is treated as Enterprise was.
  assert.deepEqual(patchOf(KEY, { ...form, plan: 'startup-custom' }, 'utc', isCustom), {
    plan: 'startup-custom',
    perMinute: 60,
    perDay: 1000
  })
})

test('clearing the expiry of a key that had one sends null: no expiry', () => {
  const expiring = { ...KEY, expiresAt: '2027-01-01T00:00:00.000Z' }
  assert.deepEqual(
    patchOf(expiring, { ...formOf(expiring, 'utc'), expiresAt: '' }, 'utc', () => false),
    { expiresAt: null }
  )
})
