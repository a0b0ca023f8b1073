import { toInt64 } from './int64.ts'

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

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value
}

/** JSON.stringify that writes a bigint as its exact digits. */
export function stringifyJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, bigintReplacer, indent)
}
