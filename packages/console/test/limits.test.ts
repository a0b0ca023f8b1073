import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hasRequests, totalsOf } from '../src/components/usage/series.ts'
import { limitsInWords, limitsText, usedText } from '../src/limits.ts'

test('limits name the month only with a monthly quota', () => {
  const plain = { perMinute: 300, perDay: 10000, perMonth: null }
  const metered = { ...plain, perMonth: 1_000_000 }
  assert.equal(limitsText(plain), '300/min, 10,000/day')
  assert.equal(limitsText(metered), '300/min, 10,000/day, 1,000,000/month')
  assert.equal(limitsInWords(plain), '300 a minute, 10,000 a day')
  assert.equal(limitsInWords(metered), '300 a minute, 10,000 a day, 1,000,000 a month')
})

test("what was used names the month only where it is counted: a customer's, with a monthly quota", () => {
  const plain = { perMinute: 300, perDay: 10000, perMonth: null }
  const metered = { ...plain, perMonth: 5000 }
  assert.equal(usedText({ minute: 3, day: 1200, month: 0 }, plain), '3/min, 1,200/day')
  assert.equal(usedText({ minute: 3, day: 1200, month: 4321 }, metered), '3/min, 1,200/day, 4,321/month')
  // A key's usage has no month.
  assert.equal(usedText({ minute: 3, day: 1200 }, metered), '3/min, 1,200/day')
})

test("the chart's totals and its table count requests refused for the monthly quota", () => {
  const start = '2026-11-27T10:00:00.000Z'
  const refused = { start, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 4 }
  assert.deepEqual(totalsOf([refused, { ...refused, allowed: 2, quotaExceeded: 1 }]), {
    allowed: 2,
    rateLimited: 0,
    banned: 0,
    quotaExceeded: 5
  })
  assert.equal(hasRequests(refused), true, 'a bucket of quota refusals only is a row of the table')
  assert.equal(hasRequests({ ...refused, quotaExceeded: 0 }), false)
})
