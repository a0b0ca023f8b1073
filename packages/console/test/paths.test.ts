import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextCursor } from '../src/api/link.ts'
import { customerHref, keyHref, parseRoute } from '../src/routes.ts'
import { RANGES, rangeQuery } from '../src/usage-range.ts'

test('takes the cursor of the rel="next" link only', () => {
  assert.equal(nextCursor('<http://127.0.0.1:8081/admin/v1/keys?limit=50&cursor=abc_-1>; rel="next"'), 'abc_-1')
  assert.equal(nextCursor('</admin/v1/audit?cursor=x1>; rel=next'), 'x1')
  assert.equal(nextCursor('<https://docs.example/a,b>; rel="help", </admin/v1/keys?cursor=c2>; rel="next"'), 'c2')
  assert.equal(nextCursor('</admin/v1/keys?cursor=c3>; rel="prefetch next"'), 'c3')
  assert.equal(nextCursor('</admin/v1/keys?cursor=c4>; rel="prev"'), null)
  assert.equal(nextCursor(null), null)
})

test('routes live in the fragment, and an odd one opens the keys', () => {
  assert.deepEqual(parseRoute(''), { screen: 'keys' })
  assert.deepEqual(parseRoute('#/keys'), { screen: 'keys' })
  assert.deepEqual(parseRoute('#/audit'), { screen: 'audit' })
  assert.deepEqual(parseRoute(keyHref('key_<b>&x')), { screen: 'key', id: 'key_<b>&x' })
  assert.deepEqual(parseRoute('#/keys/%E0'), { screen: 'key', id: '%E0' })
  assert.deepEqual(parseRoute('#/customers'), { screen: 'customers' })
  assert.deepEqual(parseRoute('#/customers/'), { screen: 'customers' })
  assert.deepEqual(parseRoute(customerHref('cus_a/b c')), { screen: 'customer', id: 'cus_a/b c' })
  assert.deepEqual(parseRoute('#/nowhere'), { screen: 'keys' })
})

test('each range asks for at most 3,000 buckets, ending with the one that holds now', () => {
  const now = Date.parse('2026-11-27T10:15:42.000Z')
  const expected = { '1 hour': 60, '24 hours': 1440, '7 days': 168, '30 days': 720 }
  for (const range of RANGES) {
    const query = rangeQuery(range, now)
    const step = query.granularity === 'minute' ? 60_000 : 3_600_000
    const buckets = (Date.parse(query.to) - Date.parse(query.from)) / step
    assert.equal(buckets, expected[range.label], range.label)
    assert.ok(buckets <= 3000)
    assert.ok(Date.parse(query.to) > now && Date.parse(query.to) - step <= now, `${range.label} holds now`)
  }
  assert.deepEqual(rangeQuery(RANGES[0], now), { from: '2026-11-27T09:16:00.000Z', to: '2026-11-27T10:16:00.000Z', granularity: 'minute' })
})
