import Type from 'typebox'

/**
 * An int64 value as it travels through the service: a `number` while it is a safe
 * JavaScript integer, a `bigint` beyond that. Nothing on the way may round it.
 */
export type Int64 = number | bigint

export const INT64_MAX = 9223372036854775807n

/** Marker read by the JSON Schema and OpenAPI emitters: this node is an int64 integer. */
export const INT64_MARKER = 'x-int64'

/**
 * A positive int64 (1 to 2^63-1). The schema validates with a refinement because JSON
 * Schema's `integer` cannot see a bigint; the emitters turn it into
 * `{ type: integer, format: int64, minimum, maximum }` for the world outside.
 */
export function PositiveInt64(options: { description?: string } = {}) {
  // The range in words too: viewers and generators that read numbers as doubles show the maximum rounded, or not at all.
  const description = `${options.description ?? 'A positive int64'}: 1 to ${INT64_MAX}, beyond 2^53 (9007199254740991)`
  return Type.Refine(
    Type.Unsafe<Int64>({ [INT64_MARKER]: { minimum: 1n, maximum: INT64_MAX }, ...options, description }),
    isPositiveInt64,
    () => 'must be an integer from 1 to 9223372036854775807, written as plain digits (no fraction or exponent)'
  )
}

export function isPositiveInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1
  if (typeof value === 'bigint') return value >= 1n && value <= INT64_MAX
  return false
}

/** Normalises an int64 to its canonical form: a number when safe, else a bigint. */
export function toInt64(value: bigint | number): Int64 {
  if (typeof value === 'number') return value
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value
}

const PLAIN_DIGITS = /^[0-9]{1,19}$/

/** Parses a decimal string as a positive int64; undefined when it is not one. */
export function parsePositiveInt64(text: string): Int64 | undefined {
  if (!PLAIN_DIGITS.test(text)) return undefined
  // Up to 15 digits is always a safe integer: no bigint on the common path (a pet id in a URL).
  const value = text.length <= 15 ? Number(text) : toInt64(BigInt(text))
  return isPositiveInt64(value) ? value : undefined
}
