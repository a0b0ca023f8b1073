import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { oncePerTurn, PerTurnBatch, PerTurnLookup } from '../../src/base/per-turn.ts'

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
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed')),
      ['A', 'B', 'failed', 'failed', 'E']
    )
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

describe('PerTurnBatch', () => {
  test(
    'items added in one turn go to one call in order, each gets the answer at its index; ' +
      'a chunk that fails or answers short fails only its own items',
    async () => {
      const calls: number[][] = []
      const batch = new PerTurnBatch<number, string>(async (items) => {
        calls.push(items)
        if (items.includes(3)) throw new Error('no threes')
        return items.includes(5) ? ['short'] : items.map((n) => `#${n}`)
      }, 2)
      const outcomes = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7].map((n) => batch.add(n)))
      assert.deepEqual(calls, [[1, 2], [3, 4], [5, 6], [7]])
      assert.deepEqual(
        outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
        ['#1', '#2', 'no threes', 'no threes', 'a batch of 2 got 1 answers', 'a batch of 2 got 1 answers', '#7']
      )
      assert.equal(await batch.add(8), '#8')
      assert.equal(calls.length, 5, 'an item of a later turn goes into a call of its own')
    }
  )
})

describe('oncePerTurn', () => {
  test('the calls of one turn share one run, made once the turn is over; a later turn runs again', async () => {
    let runs = 0
    const read = oncePerTurn(async () => ++runs)
    const first = [read(), read(), read()]
    assert.equal(runs, 0, 'nothing runs before the turn is over')
    assert.deepEqual(await Promise.all(first), [1, 1, 1])
    assert.equal(await read(), 2)
  })
})
