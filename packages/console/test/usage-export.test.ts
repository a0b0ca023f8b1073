import assert from 'node:assert/strict'
import { test } from 'node:test'
import { exportFileName, exportGranularity, exportQuery } from '../src/usage-export.ts'
import { RANGES, rangeQuery } from '../src/usage-range.ts'

// Rounding is in UTC whatever the runtime's zone: Kathmandu is +05:45, off any whole hour.
process.env.TZ = 'Asia/Kathmandu'

test('exports by day when the screen shows days, else by hour', () => {
  assert.equal(exportGranularity('day'), 'day')
  assert.equal(exportGranularity('hour'), 'hour')
  assert.equal(exportGranularity('minute'), 'hour')
})

test('widens the range to whole UTC hours: from down, to up, boundaries kept', () => {
  assert.deepEqual(exportQuery({ from: '2026-11-26T10:16:00.000Z', to: '2026-11-27T10:16:00.000Z' }, 'minute', 'cloudevents'), {
    from: '2026-11-26T10:00:00.000Z',
    to: '2026-11-27T11:00:00.000Z',
    granularity: 'hour',
    format: 'cloudevents'
  })
  assert.deepEqual(exportQuery({ from: '2026-11-20T11:00:00.000Z', to: '2026-11-27T11:00:00.000Z' }, 'hour', 'stripe'), {
    from: '2026-11-20T11:00:00.000Z',
    to: '2026-11-27T11:00:00.000Z',
    granularity: 'hour',
    format: 'stripe'
  })
  // A millisecond past a boundary is the next period's; an offset is read as the moment it names.
  const odd = exportQuery({ from: '2026-11-26T10:59:59.999Z', to: '2026-11-27T11:00:00.001+00:00' }, 'minute', 'cloudevents')
  assert.deepEqual([odd.from, odd.to], ['2026-11-26T10:00:00.000Z', '2026-11-27T12:00:00.000Z'])
  // Year and month ends roll over.
  const newYear = exportQuery({ from: '2026-12-31T23:30:00.000Z', to: '2026-12-31T23:30:00.000Z' }, 'minute', 'cloudevents')
  assert.deepEqual([newYear.from, newYear.to], ['2026-12-31T23:00:00.000Z', '2027-01-01T00:00:00.000Z'])
})

test('widens the range to UTC midnights by day, not local ones', () => {
  const query = exportQuery({ from: '2026-02-27T18:30:00.000Z', to: '2026-02-28T00:00:01.000Z' }, 'day', 'cloudevents')
  assert.deepEqual(query, { from: '2026-02-27T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z', granularity: 'day', format: 'cloudevents' })
  const midnight = exportQuery({ from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' }, 'day', 'stripe')
  assert.deepEqual([midnight.from, midnight.to], ['2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z'])
})

test('every range the screen offers exports whole periods that cover it', () => {
  const now = Date.parse('2026-11-27T10:15:42.123Z')
  for (const range of RANGES) {
    const shown = rangeQuery(range, now)
    const query = exportQuery(shown, range.granularity, 'cloudevents')
    const [from, to] = [Date.parse(query.from), Date.parse(query.to)]
    assert.equal(from % 3_600_000, 0, range.label)
    assert.equal(to % 3_600_000, 0, range.label)
    assert.ok(from <= Date.parse(shown.from) && Date.parse(shown.from) - from < 3_600_000, range.label)
    assert.ok(to >= Date.parse(shown.to) && to - Date.parse(shown.to) < 3_600_000, range.label)
  }
})

test('names the file by its UTC bounds and period, with no colon', () => {
  assert.equal(
    exportFileName({ from: '2026-11-26T10:00:00.000Z', to: '2026-11-27T11:00:00.000Z', granularity: 'hour' }),
    'animal-store-usage-2026-11-26T10-00-00Z-2026-11-27T11-00-00Z-hour.ndjson'
  )
  assert.equal(
    exportFileName({ from: '2026-02-27T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z', granularity: 'day' }),
    'animal-store-usage-2026-02-27T00-00-00Z-2026-03-01T00-00-00Z-day.ndjson'
  )
})
