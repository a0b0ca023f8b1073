import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { parseJsonLossless, stringifyJson as contractStringify } from '@animal-store/contract'
import { parseJson, stringifyJson } from '../src/json.ts'

// Integers around the edges that matter: 2^53, 2^63, and plain small ones.
const int64ish = fc.oneof(
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }),
  fc.integer()
)
const jsonWithBigInts = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    int64ish,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object')
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 5 })
})).value

describe('lossless JSON without the platform features Node 20 lacks', () => {
  test('reads every document exactly as the contract reads it (JSON.parse with source text)', () => {
    fc.assert(
      fc.property(jsonWithBigInts, fc.boolean(), (value, pretty) => {
        const text = contractStringify(value, pretty ? 2 : undefined)
        assert.deepEqual(parseJson(text), parseJsonLossless(text))
      }),
      { numRuns: 2000 }
    )
  })

  test('writes every value exactly as the contract writes it (JSON.rawJSON)', () => {
    fc.assert(
      fc.property(jsonWithBigInts, (value) => {
        assert.equal(stringifyJson(value), contractStringify(value))
      }),
      { numRuns: 2000 }
    )
  })

  test('the int64 edges: a number while safe, a bigint beyond, never rounded', () => {
    assert.deepEqual(
      parseJson('{"id":9007199254740991,"a":9007199254740992,"b":9007199254740993,"max":9223372036854775807,"neg":-9223372036854775808}'),
      { id: 9007199254740991, a: 9007199254740992n, b: 9007199254740993n, max: 9223372036854775807n, neg: -9223372036854775808n }
    )
    assert.deepEqual(parseJson('[1.5e300, 12345678901234567.5, 1e20, "9007199254740993"]'), [
      1.5e300,
      Number('12345678901234567.5'),
      1e20,
      '9007199254740993'
    ])
    assert.equal(stringifyJson({ categoryId: 9223372036854775807n, name: 'x' }), '{"categoryId":9223372036854775807,"name":"x"}')
  })

  test('"__proto__" stays an own property, as with JSON.parse', () => {
    const parsed = parseJson('{"__proto__":{"polluted":1},"n":9007199254740993}') as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype)
    assert.deepEqual(Object.keys(parsed), ['__proto__', 'n'])
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  test('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      '{',
      '[1,]',
      '{"a":1,}',
      '01',
      '1 2',
      '"\u0001"',
      '{"a" 1}',
      'tru',
      '[9007199254740993',
      '9007199254740993 x',
      '-',
      '{"a":9007199254740993}}'
    ]) {
      assert.throws(() => JSON.parse(text), SyntaxError, text)
      assert.throws(() => parseJson(text), SyntaxError, text)
      assert.throws(() => parseJson(`[9007199254740993, ${text}]`), SyntaxError, `lossless path: ${text}`)
    }
  })
})
