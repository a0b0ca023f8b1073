/**
 * Renders the client's types and constants from the OpenAPI document, so the published
 * client needs neither the contract package nor TypeBox at run time and still has one
 * source of truth. Only the shapes the document uses are handled; anything else throws,
 * so a new construct in the contract cannot be silently mistranslated.
 */

type Json = Record<string, unknown>

export const GENERATED_PATH = 'src/api-types.generated.ts'

// `Error` would shadow the global class in the client's own code.
const TYPE_NAMES: Record<string, string> = { Error: 'ErrorBody' }

function typeName(component: string): string {
  return TYPE_NAMES[component] ?? component
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

function constantCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
}

/** Lines of the generated module stay within this (the repository's Prettier printWidth) wherever a list can be broken. */
const MAX_LINE = 140

/** `head` then the union of `members`: on one line when it fits, else one member a line, as Prettier lays it out. */
function unionLines(head: string, members: string[]): string {
  const line = `${head} ${members.join(' | ')}`
  return line.length <= MAX_LINE ? line : `${head}\n${members.map((member) => `  | ${member}`).join('\n')}`
}

/** `head` then an array literal of `items`: on one line when it fits, else one item a line, as Prettier lays it out. */
function arrayLines(head: string, items: string[]): string {
  const line = `${head} [${items.join(', ')}]`
  return line.length <= MAX_LINE ? line : `${head} [\n${items.map((item) => `  ${item}`).join(',\n')}\n]`
}

function jsdoc(lines: Array<string | undefined>, indent = ''): string {
  const text = lines.filter((line): line is string => line !== undefined && line !== '')
  if (text.length === 0) return ''
  if (text.length === 1) return `${indent}/** ${text[0]} */\n`
  return `${indent}/**\n${text.map((line) => `${indent} * ${line}`).join('\n')}\n${indent} */\n`
}

function refName(ref: string): string {
  const prefix = '#/components/schemas/'
  if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`)
  return typeName(ref.slice(prefix.length))
}

function stringEnum(schema: Json): string[] | undefined {
  if (!Array.isArray(schema.enum)) return undefined
  if (!schema.enum.every((value) => typeof value === 'string')) throw new Error(`unsupported enum ${JSON.stringify(schema.enum)}`)
  return schema.enum
}

class Renderer {
  readonly #enums = new Map<string, string[]>()

  constructor(schemas: Json) {
    for (const [name, schema] of Object.entries(schemas)) {
      const values = stringEnum(schema as Json)
      if (values !== undefined) this.#enums.set(typeName(name), values)
    }
  }

  /** A TypeScript type for a schema; an inline enum equal to a named one takes its name. */
  type(schema: Json): string {
    if (typeof schema.$ref === 'string') return refName(schema.$ref)
    const values = stringEnum(schema)
    if (values !== undefined) {
      for (const [name, named] of this.#enums) {
        if (named.join('\0') === values.join('\0')) return name
      }
      return values.map(quote).join(' | ')
    }
    if (schema.type === 'string') return 'string'
    if (schema.type === 'boolean') return 'boolean'
    if (schema.type === 'integer') return schema.format === 'int64' ? 'Int64' : 'number'
    if (schema.type === 'number') return 'number'
    if (schema.type === 'null') return 'null'
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((member) => this.type(member)).join(' | ')
    if (schema.type === 'array') return `${this.type(schema.items as Json)}[]`
    throw new Error(`unsupported schema ${JSON.stringify(schema, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`)
  }

  propertyDoc(schema: Json): Array<string | undefined> {
    const int64 =
      schema.format === 'int64'
        ? `int64 from ${String(schema.minimum)} to ${String(schema.maximum)}: a \`number\` while safe, a \`bigint\` beyond`
        : undefined
    return [schema.description as string | undefined, int64]
  }

  component(name: string, schema: Json): string {
    const type = typeName(name)
    const values = stringEnum(schema)
    if (values !== undefined) {
      const quoted = values.map(quote)
      return (
        `${jsdoc([schema.description as string | undefined])}${unionLines(`export type ${type} =`, quoted)}\n` +
        `${arrayLines(`export const ${constantCase(type)}_VALUES: readonly ${type}[] =`, quoted)}\n`
      )
    }
    if (schema.type === 'object') {
      const required = new Set((schema.required as string[] | undefined) ?? [])
      const properties = Object.entries(schema.properties as Record<string, Json>).map(([property, propertySchema]) => {
        const optional = required.has(property) ? '' : '?'
        return `${jsdoc(this.propertyDoc(propertySchema), '  ')}  ${property}${optional}: ${this.type(propertySchema)}\n`
      })
      return `${jsdoc([schema.description as string | undefined])}export interface ${type} {\n${properties.join('')}}\n`
    }
    return `${jsdoc([schema.description as string | undefined])}export type ${type} = ${this.type(schema)}\n`
  }
}

interface Operation {
  operationId: string
  method: string
  path: string
  deprecated?: boolean
  'x-sunset'?: string
  parameters?: Array<{ name: string; in: string; schema: Json }>
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item))
      operations.push({ ...(operation as unknown as Operation), method: method.toUpperCase(), path })
  }
  return operations
}

function renderOperations(operations: Operation[]): string {
  const entries = operations.map((op) => {
    const fields = [`method: ${quote(op.method)}`, `path: ${quote(op.path)}`]
    if (op.deprecated === true) fields.push('deprecated: true', `sunset: ${quote(op['x-sunset'] ?? '')}`)
    return `  ${op.operationId}: { ${fields.join(', ')} }`
  })
  return (
    '/** The operations of the API, by operationId: method and path relative to the base address. */\n' +
    `export const OPERATIONS = {\n${entries.join(',\n')}\n} as const\n`
  )
}

function renderPageSize(operations: Operation[]): string {
  const limit = operations.find((op) => op.operationId === 'listPets')?.parameters?.find((p) => p.name === 'limit' && p.in === 'query')
  if (limit === undefined) throw new Error('listPets has no limit query parameter')
  const { minimum, maximum, default: fallback } = limit.schema
  return (
    '/** The `limit` of listPets: the page sizes the service accepts and the one it uses when none is given. */\n' +
    `export const PAGE_SIZE = { minimum: ${String(minimum)}, maximum: ${String(maximum)}, default: ${String(fallback)} } as const\n`
  )
}

/** The whole generated module, for the OpenAPI document `doc` (int64 bounds may be bigint). */
export function renderApiTypes(doc: Json): string {
  const schemas = (doc.components as Json).schemas as Json
  const renderer = new Renderer(schemas)
  const operations = operationsOf(doc)
  const info = doc.info as { version: string }
  return [
    '// Generated from the OpenAPI document of @animal-store/contract by scripts/generate-api-types.ts.\n' +
      '// Do not edit: run `npm run generate -w @animal-store/client`. A test fails when this file drifts.\n',
    `/** The version of the interface these types describe. */\nexport const API_VERSION = ${quote(info.version)}\n`,
    '/** An int64 value: a `number` while it is a safe JavaScript integer, a `bigint` beyond, never rounded. */\n' +
      'export type Int64 = number | bigint\n',
    // The SDK parses int64 exactly itself: it never asks for the int64-as-strings representation.
    ...Object.entries(schemas)
      .filter(([name]) => !name.endsWith('IEEE754'))
      .map(([name, schema]) => renderer.component(name, schema as Json)),
    renderOperations(operations),
    renderPageSize(operations)
  ].join('\n')
}
