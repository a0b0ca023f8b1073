import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { PerTurnLookup } from '../src/storage/postgres/per-turn-lookup.ts'

/** A lookup over a fixed table that records every read it is asked for. */
function recordingLookup(table: Record<string, string>, maxKeys: number, fail?: (keys: string[]) => boolean) {
  const reads: string[][] = []
  const lookup = new PerTurnLookup<string>(async (keys) => {
    reads.push(keys)
    if (fail?.(keys) === true) throw new Error(`read of ${keys.join(',')} failed`)
    return new Map(keys.filter((key) => key in table).map((key) => [key, table[key]!]))
  }, maxKeys)
  return { lookup, reads }
}

describe('PerTurnLookup', () => {
  test('the lookups of one turn share one read; each waiter gets its own answer, a missing key undefined', async () => {
    const { lookup, reads } = recordingLookup({ 1: 'one', 2: 'two' }, 100)
    const answers = await Promise.all(['1', '2', '1', '9'].map((key) => lookup.get(key)))
    assert.deepEqual(answers, ['one', 'two', 'one', undefined])
    assert.deepEqual(reads, [['1', '2', '9']], 'one read, each key once')
    assert.equal(await lookup.get('2'), 'two')
    assert.equal(reads.length, 2, 'a lookup in a later turn gets a read of its own')
  })

  test('a turn with more keys than a read takes is split, and a failed read fails only its own lookups', async () => {
    const { lookup, reads } = recordingLookup({ a: 'A', b: 'B', c: 'C', d: 'D', e: 'E' }, 2, (keys) => keys.includes('c'))
    const outcomes = await Promise.allSettled(['a', 'b', 'c', 'd', 'e'].map((key) => lookup.get(key)))
    assert.deepEqual(reads, [['a', 'b'], ['c', 'd'], ['e']])
    assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed')), ['A', 'B', 'failed', 'failed', 'E'])
  })

  test('a lookup asked while a read is in flight waits for the next read, not for that one', async () => {
    const { lookup, reads } = recordingLookup({ x: 'X', y: 'Y' }, 10)
    const first = lookup.get('x')
    await nextTurn()
    const second = lookup.get('y')
    assert.deepEqual([await first, await second], ['X', 'Y'])
    assert.deepEqual(reads, [['x'], ['y']])
  })
})
