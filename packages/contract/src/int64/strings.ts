import { INT64_MARKER, parsePositiveInt64 } from './values.ts'

/**
 * The opt-in representation of int64 values as JSON strings, for clients whose JSON parser
 * rounds integers beyond 2^53 (JSON.parse, and so most generated clients). Asked for with this
 * media type in `Accept` (responses) and `Content-Type` (request bodies), as OData's
 * `IEEE754Compatible=true`; without it the wire format is plain JSON numbers.
 */
export const INT64_STRING_MEDIA_TYPE = 'application/json;IEEE754Compatible=true'

const ASKS = /;\s*ieee754compatible\s*=\s*"?true\b/i

/** Whether an `Accept` or `Content-Type` header value asks for int64 as strings. */
export function asksInt64Strings(header: string | undefined): boolean {
  return header !== undefined && header.length > 20 && ASKS.test(header)
}

type Node = Record<string, unknown>

/** Rewrites every int64 the schema names in `value`, in place where it is an object or array. */
function rewrite(schema: unknown, value: unknown, change: (int64: unknown) => unknown): unknown {
  const node = schema as Node | undefined
  if (node === undefined || value === null || value === undefined) return value
  if (node[INT64_MARKER] !== undefined) return change(value)
  if (Array.isArray(value)) return value.map((item) => rewrite(node.items, item, change))
  if (typeof value === 'object' && node.properties !== undefined) {
    const out = { ...(value as Node) }
    for (const [key, property] of Object.entries(node.properties as Node)) if (key in out) out[key] = rewrite(property, out[key], change)
    return out
  }
  return value
}

/** The value with each int64 of the schema as its decimal string. */
export function int64sToStrings(schema: unknown, value: unknown): unknown {
  return rewrite(schema, value, (int64) => (typeof int64 === 'number' || typeof int64 === 'bigint' ? String(int64) : int64))
}

/** The value with each int64 of the schema given as a decimal string read as an int64 (anything else is left for validation to refuse). */
export function int64sFromStrings(schema: unknown, value: unknown): unknown {
  return rewrite(schema, value, (int64) => (typeof int64 === 'string' ? (parsePositiveInt64(int64) ?? int64) : int64))
}
