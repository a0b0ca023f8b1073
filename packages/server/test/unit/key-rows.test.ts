import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { KeyRows } from '../../src/limits/memory/key-rows.ts'
import { SUBJECT_CHARS } from '../../src/limits/memory/row-table.ts'

const taken = (rows: KeyRows) => {
  const { forgotten, rows: changed } = rows.takeChanges()
  return { forgotten: forgotten.slice(0, forgotten.length), rows: changed.slice(0, changed.length).map((r) => [r.subject, r.minuteUsed]) }
}

describe("KeyRows: keys' counter rows, their changes tracked as addresses' are", () => {
  test('changes: forgotten keys, then changed rows with their latest counts, each once', () => {
    const rows = new KeyRows({ trackChanges: true })
    const a = rows.add('key:a', 1, 2)
    const b = rows.add('key:b', 1, 2)
    a.markChanged()
    b.markChanged()
    a.markChanged()
    a.minuteUsed = 5
    assert.deepEqual(taken(rows), {
      forgotten: [],
      rows: [
        ['key:a', 5],
        ['key:b', 0]
      ]
    })
    // b is removed while changed: deleted and not written; c takes its slot and is written.
    b.markChanged()
    rows.remove(b)
    const c = rows.add('key:c', 1, 2)
    assert.equal(c.slot, b.slot, 'a freed slot is reused')
    c.markChanged()
    assert.deepEqual(taken(rows), { forgotten: ['key:b'], rows: [['key:c', 0]] })
    assert.deepEqual(taken(rows), { forgotten: [], rows: [] })
    assert.equal(rows.find('key:b'), undefined)
    assert.equal(rows.find('key:c'), c)
  })

  test('grows past its first slots and tracks every row', () => {
    const rows = new KeyRows({ trackChanges: true })
    for (let i = 0; i < 100; i++) rows.add(`key:${i}`, 1, 2).markChanged()
    const { rows: changed } = taken(rows)
    assert.deepEqual(
      changed.map(([subject]) => subject),
      Array.from({ length: 100 }, (_, i) => `key:${i}`)
    )
    assert.equal([...rows.rows()].length, 100)
  })

  test('a subject longer than a slot, or with a character wider than a byte, is refused', () => {
    const rows = new KeyRows({ trackChanges: true })
    assert.throws(() => rows.add(`key:${'k'.repeat(SUBJECT_CHARS)}`, 1, 2), RangeError)
    assert.throws(() => rows.add('key:\u0101', 1, 2), RangeError)
    assert.equal([...rows.rows()].length, 0)
  })

  test('without change tracking nothing is recorded', () => {
    const rows = new KeyRows({ trackChanges: false })
    for (let i = 0; i < 50; i++) rows.add(`key:${i}`, 1, 2).markChanged()
    rows.remove(rows.find('key:3')!)
    assert.equal(rows.isChanged(0), false)
    assert.deepEqual(taken(rows), { forgotten: [], rows: [] })
  })
})
