import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { INT64_MAX, parsePositiveInt64 } from '../src/int64/values.ts'

// The reference: exact bigint arithmetic, a number only where it is a safe integer.
function reference(text: string): number | bigint | undefined {
  if (!/^[0-9]{1,19}$/.test(text)) return undefined
  const value = BigInt(text)
  if (value < 1n || value > INT64_MAX) return undefined
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
}

test('parsePositiveInt64 agrees with exact bigint parsing, leading zeros and both sides of 2^53 included', () => {
  const edges = [
    '0',
    '1',
    '007',
    '000000000000000',
    '999999999999999',
    '1000000000000000',
    '9007199254740991',
    '9007199254740992',
    '0009007199254740993',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999',
    '',
    '1e3',
    ' 1',
    '-1'
  ]
  for (const text of edges) assert.equal(parsePositiveInt64(text), reference(text), JSON.stringify(text))
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 19n }), fc.nat({ max: 3 }), (value, zeros) => {
      const text = '0'.repeat(zeros) + String(value)
      assert.equal(parsePositiveInt64(text), reference(text))
    }),
    { numRuns: 2000 }
  )
})
