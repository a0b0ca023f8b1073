import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AddressRows } from '../../src/limits/memory/address-rows.ts'
import { SUBJECT_CHARS } from '../../src/limits/memory/row-table.ts'

const ip = (i: number) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`

/** Adds a subject with recognisable counts: minuteUsed = n. */
function put(rows: AddressRows, subject: string, n: number): number {
  const slot = rows.add(subject)
  Object.assign(rows.at(slot), { minuteStart: 1, minuteUsed: n, refusals: 0, dayStart: 2, dayUsed: n, bannedUntil: null })
  return slot
}

const taken = (rows: AddressRows) => {
  const { forgotten, rows: changed } = rows.takeChanges()
  return { forgotten: forgotten.slice(0, forgotten.length), rows: changed.slice(0, changed.length) }
}

describe('AddressRows: client addresses in typed arrays', () => {
  test('finds what it holds, by exact subject, and nothing else', () => {
    const rows = new AddressRows(100, { trackChanges: false })
    for (let i = 0; i < 50; i++) put(rows, ip(i), i)
    assert.equal(rows.size, 50)
    for (let i = 0; i < 50; i++) assert.equal(rows.at(rows.find(ip(i))).minuteUsed, i)
    assert.equal(rows.find(ip(50)), -1)
    assert.equal(rows.find('ip:10.0.0.'), -1, 'a prefix of a subject is not the subject')
    assert.equal(rows.find('ip:10.0.0.10 '), -1)
    const row = rows.at(rows.find(ip(7)))
    assert.equal(row.subject, ip(7))
    assert.equal(row.bannedUntil, null)
    row.bannedUntil = 123
    assert.equal(rows.at(rows.find(ip(7))).bannedUntil, 123)
  })

  test('a row keeps no month: addresses have no monthly quota, so only "none counted" is taken', () => {
    const rows = new AddressRows(10, { trackChanges: false })
    const row = rows.at(put(rows, ip(1), 3))
    Object.assign(row, { monthStart: 0, monthUsed: 0 })
    assert.deepEqual([row.monthStart, row.monthUsed, row.minuteUsed], [0, 0, 3])
    assert.throws(() => (row.monthUsed = 1), /a client address has no monthly quota/)
    assert.throws(() => (row.monthStart = Date.UTC(2026, 5, 1)), RangeError)
  })

  test('past the cap the least recently seen is forgotten first; seeing moves a subject to the end', () => {
    const rows = new AddressRows(3, { trackChanges: false })
    for (const [i, subject] of ['ip:a', 'ip:b', 'ip:c'].entries()) put(rows, subject, i)
    rows.see('ip:a')
    put(rows, 'ip:d', 3)
    assert.equal(rows.size, 3)
    assert.equal(rows.find('ip:b'), -1, 'b was the least recently seen')
    assert.deepEqual(
      ['ip:a', 'ip:c', 'ip:d'].map((s) => rows.find(s) !== -1),
      [true, true, true]
    )
    assert.equal(rows.subject(rows.oldest), 'ip:c')
    assert.equal(rows.find('ip:c'), rows.oldest, 'find does not count as a sighting')
  })

  test('grows past its first size and keeps every subject findable, through removals and reuse', () => {
    const rows = new AddressRows(20_000, { trackChanges: false })
    for (let i = 0; i < 10_000; i++) put(rows, ip(i), i)
    for (let i = 0; i < 10_000; i += 2) rows.remove(rows.find(ip(i)))
    assert.equal(rows.size, 5000)
    for (let i = 10_000; i < 15_000; i++) put(rows, ip(i), i)
    assert.equal(rows.size, 10_000)
    for (let i = 0; i < 15_000; i++) {
      const slot = rows.find(ip(i))
      if (i < 10_000 && i % 2 === 0) assert.equal(slot, -1, `${ip(i)} was removed`)
      else assert.equal(rows.at(slot).minuteUsed, i, ip(i))
    }
  })

  test('a subject longer than a slot, or with a character wider than a byte, is refused, not cut short', () => {
    const rows = new AddressRows(10, { trackChanges: false })
    assert.throws(() => rows.add(`ip:${'f'.repeat(SUBJECT_CHARS)}`), RangeError)
    assert.throws(() => rows.add('ip:\u0101'), RangeError, 'a character wider than a byte would be stored cut short')
    assert.equal(rows.size, 0)
    const longest = `ip:${'f'.repeat(SUBJECT_CHARS - 3)}`
    put(rows, longest, 1)
    assert.equal(rows.subject(rows.find(longest)), longest)
  })

  test('changes: forgotten subjects, then changed rows with their latest counts, each once', () => {
    const rows = new AddressRows(2, { trackChanges: true })
    rows.markChanged(put(rows, 'ip:a', 1))
    rows.markChanged(put(rows, 'ip:b', 2))
    rows.markChanged(rows.find('ip:a'))
    rows.at(rows.find('ip:a')).minuteUsed = 5
    let changes = taken(rows)
    assert.deepEqual(changes.forgotten, [])
    assert.deepEqual(
      changes.rows.map((r) => [r.subject, r.minuteUsed]),
      [
        ['ip:a', 5],
        ['ip:b', 2]
      ]
    )
    // c takes a's slot (a forgotten); b is removed while changed: b is deleted and not written.
    rows.markChanged(rows.find('ip:b'))
    rows.markChanged(put(rows, 'ip:c', 3))
    rows.remove(rows.find('ip:b'))
    changes = taken(rows)
    assert.deepEqual(changes.forgotten, ['ip:a', 'ip:b'])
    assert.deepEqual(
      changes.rows.map((r) => r.subject),
      ['ip:c']
    )
    assert.deepEqual(taken(rows), { forgotten: [], rows: [] })
  })

  test('without change tracking nothing is recorded, however much churns', () => {
    const rows = new AddressRows(10, { trackChanges: false })
    for (let i = 0; i < 1000; i++) rows.markChanged(put(rows, ip(i), i))
    assert.deepEqual(taken(rows), { forgotten: [], rows: [] })
  })
})
