import type { TSchema } from 'typebox'
import { RESPONSE_HEADERS, type ResponseHeaderName } from './headers.ts'
import { INT64_STRING_MEDIA_TYPE, int64sToStrings } from './int64/strings.ts'
import { toJsonSchema } from './json-schema.ts'
import { errorCodesIn, statusesOf, type OperationSpec } from './operation-spec.ts'

/** What an error code table gives a document: the status, a description and an example message of each code. */
interface ErrorTable<Code extends string> {
  status: Readonly<Record<Code, number>>
  descriptions: Readonly<Record<Code, string>>
  messages: Readonly<Record<Code, string>>
}

/**
 * One OpenAPI document's parts: the public API's and the operator API's are built by the same
 * code from their own operations, components and errors.
 */
export interface DocumentProfile<Code extends string> {
  operations: readonly OperationSpec<Code>[]
  /** Named schemas, referenced by `$ref` wherever the same object appears; `Error` and `ErrorCode` follow them. */
  components: Record<string, TSchema>
  /** Components with int64 inside, described again with int64 as strings (`<Name>IEEE754`) under that media type. */
  int64Components?: ReadonlySet<TSchema>
  /** This document's `ErrorCode` enum and Error body (errorSchemas of its codes). */
  errorSchemas: { code: TSchema; body: TSchema }
  errors: ErrorTable<Code>
  /** Codes every operation can answer with, unless it names them in `never`. */
  commonErrors: readonly Code[]
  /** Headers on every response, success and error alike. */
  everyResponseHeaders: readonly ResponseHeaderName[]
  /** The API's version, which the document describes. */
  version: string
  /** What the document says of itself; its version and licence are added. */
  info: { title: string; contact: { name: string; email: string; url: string }; description: string }
  servers: readonly Record<string, unknown>[]
  security: readonly Record<string, string[]>[]
  tags: readonly { name: string; description: string }[]
  securitySchemes: Record<string, unknown>
}

const LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' }

/**
 * Headers an error response of this status carries beyond everyResponseHeaders: both listeners
 * answer errors through the same hooks. A 401 and a scope refusal carry the RFC 6750 challenge.
 */
const errorHeaders = (status: number, codes: readonly string[]): ResponseHeaderName[] =>
  status === 429 || status === 503 ? ['Retry-After'] : status === 401 || codes.includes('insufficient_scope') ? ['WWW-Authenticate'] : []

/** One example Error body per code the status can carry, named by the code. */
function examplesOfErrors<Code extends string>(
  codes: readonly Code[],
  table: ErrorTable<Code>
): Record<string, { summary: string; value: { code: Code; message: string; status: number } }> {
  return Object.fromEntries(
    codes.map((code) => [
      code,
      { summary: table.descriptions[code], value: { code, message: table.messages[code], status: table.status[code] } }
    ])
  )
}

/** Builds an OpenAPI 3.1 document from a profile. */
export function buildDocument<Code extends string>(profile: DocumentProfile<Code>): Record<string, unknown> {
  const int64 = profile.int64Components ?? new Set<TSchema>()
  const components: Record<string, TSchema> = {
    ...profile.components,
    Error: profile.errorSchemas.body,
    ErrorCode: profile.errorSchemas.code
  }

  const ref = (node: Record<string, unknown>, except: TSchema | undefined, strings: boolean) => {
    for (const [name, schema] of Object.entries(components)) {
      if (node === schema && node !== except)
        return { $ref: `#/components/schemas/${name}${strings && int64.has(schema) ? 'IEEE754' : ''}` }
    }
    return undefined
  }
  const schemaOf = (schema: TSchema, except?: TSchema, strings = false): unknown =>
    toJsonSchema(schema, { replace: (node) => ref(node, except, strings), int64AsString: strings })

  /** A body in each representation: plain JSON, and (where int64 travels) JSON with int64 as strings. */
  const contentOf = (schema: TSchema, example: unknown, examples?: unknown): Record<string, unknown> => {
    const content: Record<string, unknown> = { 'application/json': { schema: schemaOf(schema), example, examples } }
    if (int64.size > 0)
      content[INT64_STRING_MEDIA_TYPE] = { schema: schemaOf(schema, undefined, true), example: int64sToStrings(schema, example), examples }
    return content
  }

  const headersOf = (names: readonly ResponseHeaderName[]): Record<string, unknown> =>
    Object.fromEntries(
      names.map((name) => {
        const spec = RESPONSE_HEADERS[name]
        return [name, { description: spec.description, schema: schemaOf(spec.schema) }]
      })
    )

  const parametersOf = (op: OperationSpec<Code>): unknown[] => {
    const parameters: unknown[] = []
    for (const [location, schema] of [
      ['path', op.params],
      ['query', op.query]
    ] as const) {
      if (schema === undefined) continue
      const object = schema as unknown as { properties: Record<string, TSchema>; required?: string[] }
      for (const [name, property] of Object.entries(object.properties)) {
        const { description, ...rest } = schemaOf(property) as { description?: string }
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (object.required ?? []).includes(name),
          description,
          schema: rest,
          example: op.examples.parameters?.[name]
        })
      }
    }
    for (const header of op.requestHeaders ?? []) {
      parameters.push({
        name: header.name,
        in: 'header',
        required: header.required ?? false,
        description: header.description,
        schema: schemaOf(header.schema),
        example: op.examples.parameters?.[header.name]
      })
    }
    return parameters
  }

  const responsesOf = (op: OperationSpec<Code>): Record<string, unknown> => {
    const responses: Record<string, unknown> = {
      [op.success.status]: {
        description: op.success.description,
        headers: headersOf([...op.success.headers, ...profile.everyResponseHeaders]),
        ...(op.success.status === 204
          ? {}
          : op.success.mediaType !== undefined
            ? { content: { [op.success.mediaType]: { schema: schemaOf(op.success.schema), example: op.examples.success } } }
            : { content: contentOf(op.success.schema, op.examples.success) })
      }
    }
    for (const [status, codes] of statusesOf(errorCodesIn(op, profile.commonErrors), profile.errors.status)) {
      const extra = errorHeaders(status, codes)
      if (op.deprecated !== undefined) extra.push('Deprecation', 'Sunset')
      responses[status] = {
        description: codes.map((code) => `\`${code}\`: ${profile.errors.descriptions[code]}`).join('; '),
        headers: headersOf([...extra, ...profile.everyResponseHeaders]),
        content: contentOf(profile.errorSchemas.body, undefined, examplesOfErrors(codes, profile.errors))
      }
    }
    return responses
  }

  const operationOf = (op: OperationSpec<Code>): Record<string, unknown> => {
    const out: Record<string, unknown> = { operationId: op.operationId, summary: op.summary, description: op.description, tags: op.tags }
    if (op.deprecated !== undefined) {
      out.deprecated = true
      out['x-sunset'] = op.deprecated.sunset.toISOString()
    }
    const parameters = parametersOf(op)
    if (parameters.length > 0) out.parameters = parameters
    if (op.body !== undefined) out.requestBody = { required: op.bodyRequired ?? true, content: contentOf(op.body, op.examples.body) }
    Object.assign(out, op.extensions)
    out.responses = responsesOf(op)
    return out
  }

  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of profile.operations) {
    paths[op.path] ??= {}
    paths[op.path]![op.method.toLowerCase()] = operationOf(op)
  }
  const named = Object.entries(components)
  const { title, contact, description } = profile.info
  return {
    openapi: '3.1.0',
    info: { title, version: profile.version, license: LICENSE, contact, description },
    servers: profile.servers,
    security: profile.security,
    tags: profile.tags,
    paths,
    components: {
      securitySchemes: profile.securitySchemes,
      schemas: Object.fromEntries(
        named
          .map(([name, schema]): [string, unknown] => [name, schemaOf(schema, schema)])
          .concat(
            named.filter(([, schema]) => int64.has(schema)).map(([name, schema]) => [`${name}IEEE754`, schemaOf(schema, schema, true)])
          )
      ),
      'x-error-codes': Object.fromEntries(
        Object.keys(profile.errors.status).map((code) => [code, profile.errors.descriptions[code as Code]])
      )
    }
  }
}
