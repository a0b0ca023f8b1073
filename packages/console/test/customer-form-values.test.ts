import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Customer } from '@animal-store/contract'
import { customerFormOf, customerPatchOf, EMPTY_CUSTOMER_FORM, newCustomerOf } from '../src/customers/form-values.ts'

// Enterprise is custom (limits: null), as seeded: its customers carry their own numbers.
const isCustom = (plan: string) => plan === 'enterprise'

const ACME: Customer = {
  id: 'cus_4Rk8Wq2Zx7Lm3Np9',
  name: 'Acme',
  externalId: null,
  plan: 'pro',
  limits: { perMinute: 300, perDay: 10000 },
  ownLimits: false,
  keys: 2,
  createdAt: '2026-10-01T09:30:00.000Z',
  bannedUntil: null,
  usage: { minute: 0, day: 12 }
}

test('a new customer sends its name and plan, and an external ID and own numbers only when given', () => {
  const form = { ...EMPTY_CUSTOMER_FORM, name: ' Acme ', plan: 'pro' }
  assert.deepEqual(newCustomerOf(form, isCustom), { name: 'Acme', plan: 'pro' })
  assert.deepEqual(newCustomerOf({ ...form, externalId: ' cus_Stripe1 ', perMinute: '500', perDay: '20000' }, isCustom), {
    name: 'Acme',
    plan: 'pro',
    externalId: 'cus_Stripe1',
    limits: { perMinute: 500, perDay: 20000 }
  })
  assert.equal(newCustomerOf({ ...form, name: ' ' }, isCustom), 'Name must not be empty.')
  assert.equal(newCustomerOf({ ...form, name: 'a'.repeat(201) }, isCustom), 'Name must be at most 200 characters.')
  assert.equal(newCustomerOf({ ...form, externalId: 'a\u0007' }, isCustom), 'External ID must not hold control characters.')
  assert.equal(
    newCustomerOf({ ...form, perMinute: '500' }, isCustom),
    "Give both Per minute and Per day, or neither for the plan's numbers."
  )
  assert.equal(
    newCustomerOf({ ...form, perMinute: '0', perDay: '5' }, isCustom),
    'Per minute must be a whole number from 1 to 1,000,000,000.'
  )
  assert.equal(
    newCustomerOf({ ...form, plan: 'enterprise' }, isCustom),
    'A customer on a custom plan needs its own Per minute and Per day.'
  )
  assert.deepEqual(newCustomerOf({ ...form, plan: 'enterprise', perMinute: '5000', perDay: '1000000' }, isCustom), {
    name: 'Acme',
    plan: 'enterprise',
    limits: { perMinute: 5000, perDay: 1000000 }
  })
})

test("an edit shows only the customer's own numbers and sends what changed", () => {
  const form = customerFormOf(ACME)
  assert.deepEqual(form, { name: 'Acme', plan: 'pro', externalId: '', perMinute: '', perDay: '' })
  assert.equal(customerPatchOf(ACME, form, isCustom), 'Nothing was changed.')
  assert.deepEqual(customerPatchOf(ACME, { ...form, plan: 'business' }, isCustom), { plan: 'business' })
  assert.deepEqual(customerPatchOf(ACME, { ...form, name: 'Acme Inc', externalId: 'cus_S1' }, isCustom), {
    name: 'Acme Inc',
    externalId: 'cus_S1'
  })
  assert.deepEqual(customerPatchOf(ACME, { ...form, perMinute: '400', perDay: '9000' }, isCustom), {
    limits: { perMinute: 400, perDay: 9000 }
  })
  assert.equal(
    customerPatchOf(ACME, { ...form, plan: 'enterprise' }, isCustom),
    'A customer on a custom plan needs its own Per minute and Per day.'
  )
})

test('an emptied external ID is removed (null); emptied own numbers go back to the plan (null)', () => {
  const own: Customer = { ...ACME, externalId: 'cus_S1', ownLimits: true, limits: { perMinute: 400, perDay: 9000 } }
  const form = customerFormOf(own)
  assert.deepEqual(form, { name: 'Acme', plan: 'pro', externalId: 'cus_S1', perMinute: '400', perDay: '9000' })
  assert.deepEqual(customerPatchOf(own, { ...form, externalId: ' ' }, isCustom), { externalId: null })
  assert.deepEqual(customerPatchOf(own, { ...form, perMinute: '', perDay: '' }, isCustom), { limits: null })
  // A new plan drops own numbers unless sent again: those still in the fields go with it.
  assert.deepEqual(customerPatchOf(own, { ...form, plan: 'business' }, isCustom), {
    plan: 'business',
    limits: { perMinute: 400, perDay: 9000 }
  })
  assert.deepEqual(customerPatchOf(own, { ...form, plan: 'business', perMinute: '', perDay: '' }, isCustom), { plan: 'business' })
})
