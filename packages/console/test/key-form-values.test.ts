import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SCOPES, type Key } from '@animal-store/contract'
import { EMPTY_KEY_FORM, formOf, newKeyOf, patchOf, withScope } from '../src/keys/form-values.ts'
import { SCOPE_NAMES } from '../src/labels.ts'

const KEY: Key = {
  id: 'key_7Hq2LmX9pR4sT1vW',
  prefix: 'as_live_3fK9',
  customerId: 'cus_4Rk8Wq2Zx7Lm3Np9',
  name: 'Acme',
  plan: 'free',
  limits: { perMinute: 60, perDay: 1000, perMonth: null },
  scopes: ['pets:read', 'pets:write'],
  createdAt: '2026-10-01T09:30:00.000Z',
  expiresAt: null,
  revokedAt: null,
  previousSecretExpiresAt: null,
  bannedUntil: null,
  usage: { minute: 0, day: 0, month: 0 },
  lastUsedAt: null
}

test('a new key sends only what was filled in', () => {
  assert.deepEqual(newKeyOf(EMPTY_KEY_FORM, 'utc'), { plan: 'free' })
  assert.deepEqual(
    newKeyOf(
      {
        customerId: '',
        plan: 'enterprise',
        name: ' Big ',
        perMinute: '5000',
        perDay: '1000000',
        scopes: SCOPES,
        expiresAt: '2027-01-01T00:00'
      },
      'utc'
    ),
    { plan: 'enterprise', name: 'Big', perMinute: 5000, perDay: 1000000, expiresAt: '2027-01-01T00:00:00.000Z' }
  )
  assert.equal(newKeyOf({ ...EMPTY_KEY_FORM, perMinute: '1.5' }, 'utc'), 'Per minute must be a whole number of at least 1.')
  assert.equal(newKeyOf({ ...EMPTY_KEY_FORM, perDay: '0' }, 'utc'), 'Per day must be a whole number of at least 1.')
})

test("a key for a customer sends the customer's id, never a plan or numbers (the API refuses them with it)", () => {
  const forAcme = { ...EMPTY_KEY_FORM, customerId: 'cus_4Rk8Wq2Zx7Lm3Np9', plan: 'enterprise', perMinute: '5', perDay: 'x' }
  assert.deepEqual(newKeyOf(forAcme, 'utc'), { customerId: 'cus_4Rk8Wq2Zx7Lm3Np9' })
  assert.deepEqual(newKeyOf({ ...withScope(forAcme, 'pets:write', false), name: ' CI ' }, 'utc'), {
    customerId: 'cus_4Rk8Wq2Zx7Lm3Np9',
    name: 'CI',
    scopes: ['pets:read']
  })
  // An edit never moves a key to another customer: the field is not sent.
  assert.equal(
    patchOf(KEY, { ...formOf(KEY, 'utc'), customerId: 'cus_0000000000000000' }, 'utc', () => false),
    'Nothing was changed.'
  )
})

// Enterprise is custom (limits: null), as seeded: its keys carry their own numbers.
const isCustom = (plan: string) => plan === 'enterprise' || plan === 'startup-custom'

test('an edit sends what changed: a new plan alone lets the plan bring its numbers', () => {
  const form = formOf(KEY, 'utc')
  assert.deepEqual(form, {
    customerId: 'cus_4Rk8Wq2Zx7Lm3Np9',
    plan: 'free',
    name: 'Acme',
    perMinute: '60',
    perDay: '1000',
    scopes: ['pets:read', 'pets:write'],
    expiresAt: ''
  })
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

test("the console's scopes are the contract's, in its order; a new key has both", () => {
  assert.deepEqual(SCOPE_NAMES, SCOPES)
  assert.deepEqual(EMPTY_KEY_FORM.scopes, SCOPES)
})

test('a new key sends scopes only when not both (the API gives both when absent), in the contract order', () => {
  const readOnly = withScope(EMPTY_KEY_FORM, 'pets:write', false)
  assert.deepEqual(readOnly.scopes, ['pets:read'])
  assert.deepEqual(newKeyOf(readOnly, 'utc'), { plan: 'free', scopes: ['pets:read'] })
  assert.deepEqual(newKeyOf(withScope(readOnly, 'pets:read', false), 'utc'), { plan: 'free', scopes: [] })
  // Checked again in another order, both: nothing to send.
  const both = withScope(withScope(EMPTY_KEY_FORM, 'pets:read', false), 'pets:read', true)
  assert.deepEqual(both.scopes, ['pets:write', 'pets:read'])
  assert.deepEqual(newKeyOf(both, 'utc'), { plan: 'free' })
  // Checking a box already checked changes nothing.
  assert.deepEqual(newKeyOf(withScope(EMPTY_KEY_FORM, 'pets:read', true), 'utc'), { plan: 'free' })
})

test("an edit shows the key's scopes and sends them only when changed, in the contract order", () => {
  const readOnly: Key = { ...KEY, scopes: ['pets:read'] }
  const form = formOf(readOnly, 'utc')
  assert.deepEqual(form.scopes, ['pets:read'])
  assert.equal(patchOf(readOnly, form, 'utc', isCustom), 'Nothing was changed.')
  assert.deepEqual(patchOf(readOnly, withScope(form, 'pets:write', true), 'utc', isCustom), { scopes: ['pets:read', 'pets:write'] })
  assert.deepEqual(patchOf(KEY, withScope(formOf(KEY, 'utc'), 'pets:write', false), 'utc', isCustom), { scopes: ['pets:read'] })
  assert.deepEqual(patchOf(KEY, { ...formOf(KEY, 'utc'), scopes: [] }, 'utc', isCustom), { scopes: [] })
  // Both boxes unchecked and checked again, in the other order: the same scopes, nothing sent.
  const toggled = withScope(withScope(formOf(KEY, 'utc'), 'pets:read', false), 'pets:read', true)
  assert.equal(patchOf(KEY, toggled, 'utc', isCustom), 'Nothing was changed.')
  // A scope changed along with the name: both go.
  assert.deepEqual(patchOf(readOnly, { ...form, name: 'Acme read', scopes: ['pets:write'] }, 'utc', isCustom), {
    name: 'Acme read',
    scopes: ['pets:write']
  })
  // A key without any scope shows none checked.
  assert.deepEqual(formOf({ ...KEY, scopes: [] }, 'utc').scopes, [])
})
