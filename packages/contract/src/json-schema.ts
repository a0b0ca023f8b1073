import { INT64_MARKER } from './int64/values.ts'

type JsonObject = Record<string, unknown>

/** Keywords documented for the world outside but not checked by the validator (which answers its own error). */
export const DOCUMENTED_ONLY = 'x-documented'

const INTERNAL_KEYWORDS = new Set(['x-rule', INT64_MARKER, DOCUMENTED_ONLY])

/**
 * Turns a contract schema into plain JSON Schema for the world outside (the OpenAPI
 * document, the response serializer): int64 markers become `integer`/`int64` with their
 * bounds (as bigint, written exactly by `stringifyJson`), string enums get their `type`,
 * and internal annotations are dropped.
 */
export interface JsonSchemaOptions {
  /** Swaps a node for another (e.g. a `$ref`) before it is converted. */
  replace?: (node: JsonObject) => JsonObject | undefined
  /** Emit int64 `minimum`/`maximum` (as bigint); serializers that cannot hold a bigint turn this off. */
  int64Bounds?: boolean
  /** Describe int64 as decimal strings (the INT64_STRING_MEDIA_TYPE representation). */
  int64AsString?: boolean
}

export function toJsonSchema(schema: unknown, options: JsonSchemaOptions = {}): unknown {
  if (Array.isArray(schema)) return schema.map((item) => toJsonSchema(item, options))
  if (schema === null || typeof schema !== 'object') return schema
  const node = schema as JsonObject
  const replaced = options.replace?.(node)
  if (replaced !== undefined) return replaced
  const out: JsonObject = {}
  const int64 = node[INT64_MARKER] as { minimum: bigint; maximum: bigint } | undefined
  if (int64 !== undefined && options.int64AsString === true) {
    Object.assign(out, { type: 'string', format: 'int64', pattern: '^[1-9][0-9]{0,18}$', maxLength: 19 })
  } else if (int64 !== undefined) {
    out.type = 'integer'
    out.format = 'int64'
    if (options.int64Bounds !== false) {
      out.minimum = int64.minimum
      out.maximum = int64.maximum
    }
  }
  if (Array.isArray(node.enum) && node.type === undefined && node.enum.every((v) => typeof v === 'string')) out.type = 'string'
  for (const [key, value] of Object.entries(node)) {
    if (INTERNAL_KEYWORDS.has(key)) continue
    out[key] = key === 'properties' ? mapValues(value as JsonObject, options) : toJsonSchema(value, options)
  }
  Object.assign(out, node[DOCUMENTED_ONLY])
  return out
}

function mapValues(properties: JsonObject, options: JsonSchemaOptions): JsonObject {
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, toJsonSchema(value, options)]))
}
