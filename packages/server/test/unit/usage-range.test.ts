import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { keptSince, topKeysSpans, usageRange, UsageQueryError, type UsageRangeInput } from '../../src/domain/usage/range.ts'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()
const H = 3_600_000
const D = 24 * H

// 10 s into a minute, so alignment shows.
const NOW = at('2026-06-15T12:00:10Z')

function range(input: UsageRangeInput, now = NOW) {
  const { granularity, from, to, buckets } = usageRange(input, now)
  return { granularity, from: iso(from), to: iso(to), buckets }
}

function refusal(input: UsageRangeInput, field: string, message: RegExp, now = NOW): void {
  assert.throws(
    () => usageRange(input, now),
    (error: unknown) => {
      assert.ok(error instanceof UsageQueryError, String(error))
      assert.equal(error.field, field)
      assert.match(error.message, message)
      return true
    }
  )
}

describe('usage ranges', () => {
  test('defaults: to is now, from 24 hours before; minutes, from aligned down and to up, so the current minute is in', () => {
    assert.deepEqual(range({}), { granularity: 'minute', from: '2026-06-14T12:00:00.000Z', to: '2026-06-15T12:01:00.000Z', buckets: 1441 })
    assert.deepEqual(range({}, at('2026-06-15T12:00:00Z')).buckets, 1440, 'an aligned now ends the range on a bucket boundary')
    assert.deepEqual(range({ to: at('2026-06-15T06:30:00Z') }), {
      granularity: 'minute',
      from: '2026-06-14T06:30:00.000Z',
      to: '2026-06-15T06:30:00.000Z',
      buckets: 1440
    })
  })

  test('without a granularity: the finest one that still keeps the start and fits in 3,000 buckets', () => {
    assert.deepEqual(range({ from: NOW - H }), {
      granularity: 'minute',
      from: '2026-06-15T11:00:00.000Z',
      to: '2026-06-15T12:01:00.000Z',
      buckets: 61
    })
    // Minutes are kept 48 hours: a range starting earlier is answered by hour.
    assert.deepEqual(range({ from: NOW - 7 * D }), {
      granularity: 'hour',
      from: '2026-06-08T12:00:00.000Z',
      to: '2026-06-15T13:00:00.000Z',
      buckets: 169
    })
    assert.equal(range({ from: NOW - 30 * D }).buckets, 721)
    // Hours are kept 90 days.
    assert.deepEqual(range({ from: NOW - 100 * D }), {
      granularity: 'day',
      from: '2026-03-07T00:00:00.000Z',
      to: '2026-06-16T00:00:00.000Z',
      buckets: 101
    })
    // Within 48 hours but more than 3,000 minutes (to in the future): hours.
    assert.deepEqual(range({ from: NOW - H, to: NOW + 3 * D }).granularity, 'hour')
  })

  test('the retention boundary: a granularity reaches from while its bucket holding from is kept', () => {
    const minutesSince = keptSince('minute', NOW)
    assert.equal(iso(minutesSince), '2026-06-13T12:00:00.000Z')
    assert.equal(iso(keptSince('hour', NOW)), '2026-03-17T12:00:00.000Z')
    assert.equal(iso(keptSince('day', NOW)), '2025-05-11T00:00:00.000Z')
    assert.equal(range({ from: minutesSince, to: minutesSince + H }).granularity, 'minute')
    assert.equal(range({ from: minutesSince - 1, to: minutesSince + H }).granularity, 'hour')
    assert.equal(range({ from: minutesSince, to: minutesSince + H, granularity: 'minute' }).buckets, 60)
    refusal(
      { from: minutesSince - 1, to: minutesSince + H, granularity: 'minute' },
      'from',
      /^from must be within the last 48 hours for minute buckets/
    )
  })

  test('an explicit granularity is used as asked, aligned the same way', () => {
    assert.deepEqual(range({ granularity: 'hour' }), {
      granularity: 'hour',
      from: '2026-06-14T12:00:00.000Z',
      to: '2026-06-15T13:00:00.000Z',
      buckets: 25
    })
    assert.deepEqual(range({ granularity: 'day' }), {
      granularity: 'day',
      from: '2026-06-14T00:00:00.000Z',
      to: '2026-06-16T00:00:00.000Z',
      buckets: 2
    })
    assert.deepEqual(range({ from: at('2026-06-15T11:59:59.999Z'), to: at('2026-06-15T12:00:00.001Z'), granularity: 'minute' }), {
      granularity: 'minute',
      from: '2026-06-15T11:59:00.000Z',
      to: '2026-06-15T12:01:00.000Z',
      buckets: 2
    })
  })

  test('refusals name the field at fault, in the words of the query', () => {
    refusal({ from: NOW, to: NOW }, 'from', /^from must be before to$/)
    refusal({ from: NOW + 1 }, 'from', /^from must be before to \(now when omitted\)$/)
    refusal(
      { from: NOW - 3 * D, granularity: 'minute' },
      'from',
      /within the last 48 hours for minute buckets.*hour or day reaches further back/
    )
    refusal({ from: NOW - 91 * D, granularity: 'hour' }, 'from', /within the last 90 days for hour buckets.*day reaches further back/)
    refusal(
      { from: NOW - 401 * D },
      'from',
      /^from must be within the last 400 days: usage is kept by minute 48 hours, by hour 90 days, by day 400 days$/
    )
    refusal({ to: NOW - 400 * D }, 'from', /^from \(24 hours before to when omitted\) must be within the last 400 days/)
    refusal(
      { from: NOW - H, to: NOW + 3000 * 60_000, granularity: 'minute' },
      'to',
      /^from and to span 3061 minute buckets; at most 3000 .*coarser granularity$/
    )
    refusal(
      { from: NOW - D, to: NOW + 3000 * D },
      'to',
      /^from and to span 3002 day buckets; at most 3000 are answered: bring to closer to from$/
    )
    refusal({ from: Number.NaN }, 'from', /^from must be an ISO 8601 date-time/)
    refusal({ to: 1e17 }, 'to', /^to must be an ISO 8601 date-time/)
    refusal({ granularity: 'week' as 'day' }, 'granularity', /^granularity must be one of minute, hour, day$/)
  })
})

describe('top-keys spans', () => {
  const spans = (input: UsageRangeInput) => topKeysSpans(input, NOW).map((span) => `${span.granularity} ${iso(span.from)} ${iso(span.to)}`)

  test('the coarsest buckets inside the range, finer ones at its edges', () => {
    assert.deepEqual(spans({}), [
      'hour 2026-06-14T12:00:00.000Z 2026-06-15T12:00:00.000Z',
      'minute 2026-06-15T12:00:00.000Z 2026-06-15T12:01:00.000Z'
    ])
    assert.deepEqual(spans({ from: at('2026-06-13T22:30:00Z'), to: at('2026-06-15T01:15:30Z') }), [
      'minute 2026-06-13T22:30:00.000Z 2026-06-13T23:00:00.000Z',
      'hour 2026-06-13T23:00:00.000Z 2026-06-14T00:00:00.000Z',
      'day 2026-06-14T00:00:00.000Z 2026-06-15T00:00:00.000Z',
      'hour 2026-06-15T00:00:00.000Z 2026-06-15T01:00:00.000Z',
      'minute 2026-06-15T01:00:00.000Z 2026-06-15T01:16:00.000Z'
    ])
    assert.deepEqual(spans({ from: NOW - 5 * 60_000 }), ['minute 2026-06-15T11:55:00.000Z 2026-06-15T12:01:00.000Z'])
  })

  test('where minutes are no longer kept, hours (then days) start the range; no limit on buckets', () => {
    assert.deepEqual(spans({ from: at('2026-06-10T10:20:00Z'), to: at('2026-06-12T00:00:00Z') }), [
      'hour 2026-06-10T10:00:00.000Z 2026-06-11T00:00:00.000Z',
      'day 2026-06-11T00:00:00.000Z 2026-06-12T00:00:00.000Z'
    ])
    assert.equal(spans({ from: NOW - 399 * D, to: NOW + 3000 * D }).length, 1)
    assert.throws(() => topKeysSpans({ from: NOW - 401 * D }, NOW), UsageQueryError)
  })
})
