import { toInt64 } from './int64/values.ts'

// Sixteen digits in a row is the shortest literal that can exceed 2^53; below that
// JSON.parse is exact and we keep its fast path.
const MAYBE_UNSAFE_NUMBER = /[0-9]{16}/
const INTEGER_LITERAL = /^-?[0-9]+$/

function losslessReviver(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && INTEGER_LITERAL.test(context.source)) {
    return toInt64(BigInt(context.source))
  }
  return value
}

/**
 * JSON.parse that never rounds an integer: integer literals beyond 2^53 come back as
 * bigint (through the reviver's access to the source text), every other value exactly
 * as JSON.parse gives it.
 */
export function parseJsonLossless(text: string): unknown {
  if (!MAYBE_UNSAFE_NUMBER.test(text)) return JSON.parse(text)
  return JSON.parse(text, losslessReviver)
}

/**
 * A number literal written with a fraction or an exponent whose double is an integer
 * (`1.0`, `1e2`, and `0.99999999999999999`, which rounds to 1): no integer field takes it,
 * whatever it denotes, so rounding can never turn a fraction into an accepted integer.
 */
export class NotPlainInteger {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

// A fraction or an exponent, or sixteen digits in a row (possibly beyond 2^53).
const MAYBE_INEXACT_NUMBER = /[0-9]{16}|[0-9][.eE]/

function requestReviver(this: unknown, key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value
  if (INTEGER_LITERAL.test(context.source)) return losslessReviver.call(this, key, value, context)
  return Number.isInteger(value) ? new NotPlainInteger(context.source) : value
}

/**
 * JSON.parse for request bodies: integer literals exact (as `parseJsonLossless`), and a number
 * written with a fraction or exponent that a double would make an integer comes back as a
 * `NotPlainInteger`, so an integer is judged by its exact decimal value, never after rounding.
 */
export function parseJsonRequest(text: string): unknown {
  if (!MAYBE_INEXACT_NUMBER.test(text)) return JSON.parse(text)
  return JSON.parse(text, requestReviver)
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value
}

/** JSON.stringify that writes a bigint as its exact digits. */
export function stringifyJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, bigintReplacer, indent)
}
