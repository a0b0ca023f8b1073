import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readDeprecation } from '../src/deprecation.ts'
import { describeErrorResponse } from '../src/errors.ts'
import { findLink } from '../src/link-header.ts'
import { parseStructuredList, readRateLimit } from '../src/rate-limit-state.ts'

describe('response headers the client reads', () => {
  test('RateLimit and RateLimit-Policy (Structured Field lists) merge into windows', () => {
    const state = readRateLimit(
      new Headers({
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1781524860',
        'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
        ratelimit: '"minute";r=0;t=42, "day";r=880;t=51234'
      })
    )
    assert.deepEqual(state, {
      limit: 60,
      remaining: 0,
      reset: 1781524860,
      windows: [
        { name: 'minute', remaining: 0, resetSeconds: 42, quota: 60, windowSeconds: 60 },
        { name: 'day', remaining: 880, resetSeconds: 51234, quota: 1000, windowSeconds: 86400 }
      ]
    })
  })

  test('a customer with a monthly quota: the month is a third window', () => {
    const state = readRateLimit(
      new Headers({
        'x-ratelimit-limit': '100000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1782864000',
        'ratelimit-policy': '"minute";q=300;w=60, "day";q=10000;w=86400, "month";q=100000;w=2592000',
        ratelimit: '"minute";r=300;t=42, "day";r=7310;t=51234, "month";r=0;t=1339242'
      })
    )
    assert.equal(state?.remaining, 0)
    assert.deepEqual(state?.windows[2], { name: 'month', remaining: 0, resetSeconds: 1339242, quota: 100_000, windowSeconds: 2_592_000 })
    assert.deepEqual(
      state?.windows.map((w) => w.name),
      ['minute', 'day', 'month']
    )
  })

  test('tolerates tokens, odd spacing, unknown parameters and a missing field; undefined with no rate-limit header', () => {
    assert.deepEqual(readRateLimit(new Headers({ ratelimit: 'burst;r=3;t=1;pk=:abc:,  "a,b" ; r=1' }))?.windows, [
      { name: 'burst', remaining: 3, resetSeconds: 1, quota: undefined, windowSeconds: undefined },
      { name: 'a,b', remaining: 1, resetSeconds: undefined, quota: undefined, windowSeconds: undefined }
    ])
    assert.equal(readRateLimit(new Headers({ 'content-type': 'application/json' })), undefined)
    assert.deepEqual(readRateLimit(new Headers({ 'x-ratelimit-remaining': 'many' })), undefined)
    assert.deepEqual(parseStructuredList('"q\\"uoted";x'), [{ name: 'q"uoted', params: new Map([['x', '?1']]) }])
  })

  test('Link: the next target among several links, whatever the parameter order or quoting', () => {
    const link =
      '<https://api.example.com/v1/pets>; rel="successor-version", <https://api.example.com/docs>; rel="deprecation"; type="text/html"'
    assert.equal(findLink(link, 'successor-version'), 'https://api.example.com/v1/pets')
    assert.equal(findLink(link, 'next'), undefined)
    assert.equal(findLink('<https://x/v1/pets?limit=5&cursor=abc>; rel="next"', 'next'), 'https://x/v1/pets?limit=5&cursor=abc')
    assert.equal(findLink('<https://x/a,b>;title="x";rel=next', 'next'), 'https://x/a,b')
    assert.equal(findLink('<https://x/p>; rel="prev next"', 'next'), 'https://x/p')
    assert.equal(findLink(null, 'next'), undefined)
  })

  test('Deprecation (RFC 9745 @seconds) and Sunset (HTTP-date)', () => {
    const notice = readDeprecation(
      'getPet',
      new Headers({
        deprecation: '@1767225600',
        sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
        link: '<https://api.example.com/v1/pets>; rel="successor-version"'
      })
    )
    assert.deepEqual(notice, {
      operation: 'getPet',
      deprecatedSince: new Date('2026-01-01T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: 'https://api.example.com/v1/pets'
    })
    assert.equal(readDeprecation('getPet', new Headers()), undefined)
  })

  test('an error response without our Error body is described by its status', () => {
    assert.deepEqual(describeErrorResponse(429, '{"code":"api_key_banned","message":"banned","status":429}'), {
      code: 'api_key_banned',
      message: 'banned'
    })
    assert.deepEqual(describeErrorResponse(502, '<html>'), {
      code: 'unavailable',
      message: 'the service answered 502 without an Error body'
    })
    assert.equal(describeErrorResponse(429, '').code, 'rate_limited')
    assert.equal(
      describeErrorResponse(418, '{"code":"teapot","message":"no"}').code,
      'bad_request',
      'an unknown code is not passed off as a known one'
    )
  })
})
