import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_MONTHLY_QUOTA as CONTRACT_MAX_MONTHLY_QUOTA, MAX_PLAN_LIMIT, type Plan } from '@animal-store/contract'
import { MAX_LIMIT, MAX_MONTHLY_QUOTA } from '../src/limits.ts'
import { EMPTY_PLAN_FORM, newPlanOf, planFormOf, planPatchOf } from '../src/plans/form-values.ts'
import { planLabel, planOptions, starterPlan } from '../src/plans/choices.ts'

const at = '2026-10-01T09:30:00.000Z'
const PLANS: Plan[] = [
  { id: 'business', name: 'Business', limits: { perMinute: 1000, perDay: 100000, perMonth: null }, customers: 0, createdAt: at },
  { id: 'enterprise', name: 'Enterprise', limits: null, customers: 0, createdAt: at },
  { id: 'free', name: 'Free', limits: { perMinute: 60, perDay: 1000, perMonth: null }, customers: 3, createdAt: at },
  { id: 'pro', name: 'Pro', limits: { perMinute: 300, perDay: 10000, perMonth: null }, customers: 0, createdAt: at }
]

test('a new plan sends its id, name and limits, or null limits when custom', () => {
  const form = { ...EMPTY_PLAN_FORM, id: ' startup ', name: ' Startup ', perMinute: '120', perDay: '5000' }
  assert.deepEqual(newPlanOf(form), { id: 'startup', name: 'Startup', limits: { perMinute: 120, perDay: 5000, perMonth: null } })
  assert.deepEqual(newPlanOf({ ...form, custom: true, perMinute: '' }), { id: 'startup', name: 'Startup', limits: null })
  assert.match(newPlanOf({ ...form, id: 'Startup' }) as string, /^ID must be/)
  assert.match(newPlanOf({ ...form, id: 'a'.repeat(33) }) as string, /^ID must be/)
  assert.equal(newPlanOf({ ...form, name: '  ' }), 'Name must not be empty.')
  assert.equal(newPlanOf({ ...form, name: 'a\u0085b' }), 'Name must not hold control characters.')
  assert.equal(newPlanOf({ ...form, perMinute: '0' }), 'Per minute must be a whole number from 1 to 1,000,000,000.')
  assert.equal(newPlanOf({ ...form, perDay: '1000000001' }), 'Per day must be a whole number from 1 to 1,000,000,000.')
})

test('an edit sends what changed, the limits whole', () => {
  const free = PLANS[2]!
  const form = planFormOf(free)
  assert.deepEqual(form, { id: 'free', name: 'Free', custom: false, perMinute: '60', perDay: '1000', perMonth: '' })
  assert.equal(planPatchOf(free, form), 'Nothing was changed.')
  assert.deepEqual(planPatchOf(free, { ...form, name: 'Hobby' }), { name: 'Hobby' })
  assert.deepEqual(planPatchOf(free, { ...form, perDay: '2000' }), { limits: { perMinute: 60, perDay: 2000, perMonth: null } })
  assert.deepEqual(planPatchOf(free, { ...form, custom: true }), { limits: null })
  const enterprise = PLANS[1]!
  assert.deepEqual(planFormOf(enterprise), { id: 'enterprise', name: 'Enterprise', custom: true, perMinute: '', perDay: '', perMonth: '' })
  assert.equal(
    planPatchOf(enterprise, { ...planFormOf(enterprise), custom: false }),
    'Per minute must be a whole number from 1 to 1,000,000,000.'
  )
})

test('Per month: empty is no monthly quota (null), else a whole number from 1 to 10^12', () => {
  const form = { ...EMPTY_PLAN_FORM, id: 'metered', name: 'Metered', perMinute: '300', perDay: '10000' }
  const limitsOf = (perMonth: string) => {
    const body = newPlanOf({ ...form, perMonth })
    return typeof body === 'string' ? body : body.limits
  }
  assert.deepEqual(limitsOf(''), { perMinute: 300, perDay: 10000, perMonth: null })
  assert.deepEqual(limitsOf('  '), { perMinute: 300, perDay: 10000, perMonth: null })
  assert.deepEqual(limitsOf('5'), { perMinute: 300, perDay: 10000, perMonth: 5 })
  assert.deepEqual(limitsOf(' 100000 '), { perMinute: 300, perDay: 10000, perMonth: 100000 })
  assert.deepEqual(limitsOf('1000000000000'), { perMinute: 300, perDay: 10000, perMonth: MAX_MONTHLY_QUOTA })
  const invalid = 'Per month must be a whole number from 1 to 1,000,000,000,000, or empty for no monthly quota.'
  for (const typed of ['0', '-5', '1.5', '1e3', 'ten', '1000000000001', '99999999999999999']) assert.equal(limitsOf(typed), invalid, typed)
  // A custom plan has no limits of its own: whatever Per month held is not sent.
  assert.deepEqual(newPlanOf({ ...form, custom: true, perMonth: 'ten' }), { id: 'metered', name: 'Metered', limits: null })
})

test('an edit of Per month alone sends the limits whole; emptied, null', () => {
  const metered: Plan = { ...PLANS[3]!, id: 'metered', limits: { perMinute: 300, perDay: 10000, perMonth: 5000 } }
  const form = planFormOf(metered)
  assert.equal(form.perMonth, '5000')
  assert.equal(planPatchOf(metered, form), 'Nothing was changed.')
  assert.deepEqual(planPatchOf(metered, { ...form, perMonth: '6000' }), { limits: { perMinute: 300, perDay: 10000, perMonth: 6000 } })
  assert.deepEqual(planPatchOf(metered, { ...form, perMonth: '' }), { limits: { perMinute: 300, perDay: 10000, perMonth: null } })
  assert.match(planPatchOf(metered, { ...form, perMonth: '0' }) as string, /^Per month must be/)
  assert.deepEqual(planPatchOf(PLANS[2]!, { ...planFormOf(PLANS[2]!), perMonth: '5' }), {
    limits: { perMinute: 60, perDay: 1000, perMonth: 5 }
  })
})

test("the console's bounds are the contract's", () => {
  assert.equal(MAX_LIMIT, MAX_PLAN_LIMIT)
  assert.equal(MAX_MONTHLY_QUOTA, CONTRACT_MAX_MONTHLY_QUOTA)
})

test('plans as the key dialogs offer them: by name, starting on the fewest requests', () => {
  assert.equal(starterPlan(PLANS)?.id, 'free')
  assert.equal(starterPlan([PLANS[1]!])?.id, 'enterprise')
  assert.equal(starterPlan([]), undefined)
  assert.equal(planLabel(PLANS, 'pro'), 'Pro')
  assert.equal(planLabel(PLANS, 'gone'), 'gone')
  assert.deepEqual(planOptions(PLANS.slice(0, 2), 'gone'), [
    { value: 'gone', label: 'gone' },
    { value: 'business', label: 'Business' },
    { value: 'enterprise', label: 'Enterprise' }
  ])
})
