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
  limits: { perMinute: 300, perDay: 10000, perMonth: null },
  ownLimits: false,
  keys: 2,
  createdAt: '2026-10-01T09:30:00.000Z',
  bannedUntil: null,
  usage: { minute: 0, day: 12, month: 0 }
}

test('a new customer sends its name and plan, and an external ID and own numbers only when given', () => {
  const form = { ...EMPTY_CUSTOMER_FORM, name: ' Acme ', plan: 'pro' }
  assert.deepEqual(newCustomerOf(form, isCustom), { name: 'Acme', plan: 'pro' })
  assert.deepEqual(newCustomerOf({ ...form, externalId: ' cus_Stripe1 ', perMinute: '500', perDay: '20000' }, isCustom), {
    name: 'Acme',
    plan: 'pro',
    externalId: 'cus_Stripe1',
    limits: { perMinute: 500, perDay: 20000, perMonth: null }
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
    limits: { perMinute: 5000, perDay: 1000000, perMonth: null }
  })
})

test("an edit shows only the customer's own numbers and sends what changed", () => {
  const form = customerFormOf(ACME)
  assert.deepEqual(form, { name: 'Acme', plan: 'pro', externalId: '', perMinute: '', perDay: '', perMonth: '' })
  assert.equal(customerPatchOf(ACME, form, isCustom), 'Nothing was changed.')
  assert.deepEqual(customerPatchOf(ACME, { ...form, plan: 'business' }, isCustom), { plan: 'business' })
  assert.deepEqual(customerPatchOf(ACME, { ...form, name: 'Acme Inc', externalId: 'cus_S1' }, isCustom), {
    name: 'Acme Inc',
    externalId: 'cus_S1'
  })
  assert.deepEqual(customerPatchOf(ACME, { ...form, perMinute: '400', perDay: '9000' }, isCustom), {
    limits: { perMinute: 400, perDay: 9000, perMonth: null }
  })
  assert.equal(
    customerPatchOf(ACME, { ...form, plan: 'enterprise' }, isCustom),
    'A customer on a custom plan needs its own Per minute and Per day.'
  )
})

test('an emptied external ID is removed (null); emptied own numbers go back to the plan (null)', () => {
  const own: Customer = { ...ACME, externalId: 'cus_S1', ownLimits: true, limits: { perMinute: 400, perDay: 9000, perMonth: null } }
  const form = customerFormOf(own)
  assert.deepEqual(form, { name: 'Acme', plan: 'pro', externalId: 'cus_S1', perMinute: '400', perDay: '9000', perMonth: '' })
  assert.deepEqual(customerPatchOf(own, { ...form, externalId: ' ' }, isCustom), { externalId: null })
  assert.deepEqual(customerPatchOf(own, { ...form, perMinute: '', perDay: '' }, isCustom), { limits: null })
  // A new plan drops own numbers unless sent again: those still in the fields go with it.
  assert.deepEqual(customerPatchOf(own, { ...form, plan: 'business' }, isCustom), {
    plan: 'business',
    limits: { perMinute: 400, perDay: 9000, perMonth: null }
  })
  assert.deepEqual(customerPatchOf(own, { ...form, plan: 'business', perMinute: '', perDay: '' }, isCustom), { plan: 'business' })
})

test('Per month: with own numbers, empty is no monthly quota (null); alone, it needs Per minute and Per day', () => {
  const form = { ...EMPTY_CUSTOMER_FORM, name: 'Acme', plan: 'pro', perMinute: '500', perDay: '20000' }
  const limitsOf = (values: typeof form) => {
    const body = newCustomerOf(values, isCustom)
    return typeof body === 'string' ? body : body.limits
  }
  assert.deepEqual(limitsOf({ ...form, perMonth: '5' }), { perMinute: 500, perDay: 20000, perMonth: 5 })
  assert.deepEqual(limitsOf({ ...form, perMonth: ' 1000000000000 ' }), { perMinute: 500, perDay: 20000, perMonth: 1e12 })
  assert.deepEqual(limitsOf({ ...form, perMonth: '' }), { perMinute: 500, perDay: 20000, perMonth: null })
  for (const typed of ['0', '2.5', 'lots', '1000000000001']) {
    assert.equal(
      limitsOf({ ...form, perMonth: typed }),
      'Per month must be a whole number from 1 to 1,000,000,000,000, or empty for no monthly quota.'
    )
  }
  const alone = { ...form, perMinute: '', perDay: '', perMonth: '5000' }
  assert.equal(limitsOf(alone), "Give Per minute and Per day with Per month, or none of them for the plan's numbers.")
  assert.equal(limitsOf({ ...alone, plan: 'enterprise' }), 'A customer on a custom plan needs its own Per minute and Per day.')
  assert.deepEqual(limitsOf({ ...alone, plan: 'enterprise', perMinute: '10', perDay: '100' }), {
    perMinute: 10,
    perDay: 100,
    perMonth: 5000
  })
})

test("an edit shows the customer's own monthly quota and sends the limits whole when it changes", () => {
  const own: Customer = { ...ACME, ownLimits: true, limits: { perMinute: 400, perDay: 9000, perMonth: 100000 } }
  const form = customerFormOf(own)
  assert.equal(form.perMonth, '100000')
  assert.equal(customerPatchOf(own, form, isCustom), 'Nothing was changed.')
  assert.deepEqual(customerPatchOf(own, { ...form, perMonth: '' }, isCustom), { limits: { perMinute: 400, perDay: 9000, perMonth: null } })
  assert.deepEqual(customerPatchOf(own, { ...form, perMonth: '200000' }, isCustom), {
    limits: { perMinute: 400, perDay: 9000, perMonth: 200000 }
  })
  // On its plan's numbers, the plan's monthly quota is not the customer's to keep: the field starts empty.
  assert.equal(customerFormOf({ ...ACME, limits: { perMinute: 300, perDay: 10000, perMonth: 5000 } }).perMonth, '')
})
