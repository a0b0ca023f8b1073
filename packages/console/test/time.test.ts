import assert from 'node:assert/strict'
import { test } from 'node:test'
import { displayTime, fromInputValue, isoInZone, timeLeft, toInputValue } from '../src/time.ts'

// "Local" is the runtime's zone: Paris is +01:00 in November, +02:00 in July.
process.env.TZ = 'Europe/Paris'

test('writes ISO 8601 with the zone offset: Z in UTC, +01:00-style in local time', () => {
  assert.equal(isoInZone('2026-11-27T10:15:00.000Z', 'utc'), '2026-11-27T10:15:00Z')
  assert.equal(isoInZone('2026-11-27T10:15:00.000Z', 'local'), '2026-11-27T11:15:00+01:00')
  assert.equal(isoInZone('2026-07-01T23:30:00.000Z', 'local'), '2026-07-02T01:30:00+02:00')
  assert.equal(isoInZone('2026-11-27T09:58:12.345Z', 'utc'), '2026-11-27T09:58:12.345Z', 'milliseconds kept when there are some')
})

test('shows moments for people in the zone chosen', () => {
  assert.equal(displayTime('2026-11-27T10:15:00.000Z', 'utc'), '2026-11-27 10:15:00 UTC')
  assert.equal(displayTime('2026-11-27T10:15:00.000Z', 'local'), '2026-11-27 11:15:00 +01:00')
})

test('reads and fills datetime-local fields in the zone chosen', () => {
  assert.equal(fromInputValue('2026-12-01T10:00', 'utc'), '2026-12-01T10:00:00.000Z')
  assert.equal(fromInputValue('2026-12-01T10:00', 'local'), '2026-12-01T09:00:00.000Z')
  assert.equal(fromInputValue('2026-12-01T10:00:30', 'utc'), '2026-12-01T10:00:30.000Z')
  assert.equal(fromInputValue('tomorrow', 'utc'), null)
  assert.equal(toInputValue('2026-12-01T09:00:00.000Z', 'local'), '2026-12-01T10:00')
  assert.equal(toInputValue('2026-12-01T09:00:00.000Z', 'utc'), '2026-12-01T09:00')
})

test('counts down what is left of a ban', () => {
  const now = Date.parse('2026-11-27T10:00:00.000Z')
  assert.equal(timeLeft('2026-11-27T10:15:00.000Z', now), '15:00')
  assert.equal(timeLeft('2026-11-27T10:14:58.200Z', now), '14:59', 'a part of a second counts as a whole one')
  assert.equal(timeLeft('2026-11-27T11:02:03.000Z', now), '1:02:03')
  assert.equal(timeLeft('2026-11-27T09:00:00.000Z', now), '0:00')
})
