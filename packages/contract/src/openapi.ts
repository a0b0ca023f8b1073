import type { TSchema } from 'typebox'
import {
  ERROR_DESCRIPTIONS,
  ERROR_EXAMPLE_MESSAGES,
  ERROR_STATUS,
  ErrorBody,
  ErrorCodeSchema,
  ERROR_CODES,
  type ErrorCode
} from './errors.ts'
import { RATE_LIMIT_HEADERS, RESPONSE_HEADERS, type ResponseHeaderName } from './headers.ts'
import { INT64_STRING_MEDIA_TYPE, int64sToStrings } from './int64-strings.ts'
import { toJsonSchema } from './json-schema.ts'
import { errorCodesOf, errorStatuses, OPERATIONS, type OperationSpec } from './operations.ts'
import { NewPet, Pet, Pets, PetStatus } from './pets.ts'
import { RateLimitStatus, RateLimitWindow } from './rate-limit.ts'

export interface OpenApiOptions {
  /** The production `{base_url}`, ending in `/v1`. */
  publicBaseUrl: string
  /** The `{staging_base_url}`, when there is one. */
  stagingBaseUrl?: string | undefined
}

export const API_VERSION = '1.0.0'

const COMPONENTS: Record<string, TSchema> = {
  Pet,
  NewPet,
  Pets,
  PetStatus,
  RateLimitStatus,
  RateLimitWindow,
  Error: ErrorBody,
  ErrorCode: ErrorCodeSchema
}

/** The components with int64 inside, described again with int64 as strings (`<Name>IEEE754`). */
const WITH_INT64 = new Set<TSchema>([Pet, NewPet, Pets])

function ref(node: Record<string, unknown>, except: TSchema | undefined, strings: boolean): Record<string, unknown> | undefined {
  for (const [name, schema] of Object.entries(COMPONENTS)) {
    if (node === schema && node !== except)
      return { $ref: `#/components/schemas/${name}${strings && WITH_INT64.has(schema) ? 'IEEE754' : ''}` }
  }
  return undefined
}

function schemaOf(schema: TSchema, except?: TSchema, strings = false): unknown {
  return toJsonSchema(schema, { replace: (node) => ref(node, except, strings), int64AsString: strings })
}

/** A body in both representations: plain JSON, and JSON with int64 as strings. */
function contentOf(schema: TSchema, example: unknown, examples?: unknown): Record<string, unknown> {
  return {
    'application/json': { schema: schemaOf(schema), example, examples },
    [INT64_STRING_MEDIA_TYPE]: { schema: schemaOf(schema, undefined, true), example: int64sToStrings(schema, example), examples }
  }
}

function headersOf(names: readonly ResponseHeaderName[]): Record<string, unknown> {
  return Object.fromEntries(
    names.map((name) => {
      const spec = RESPONSE_HEADERS[name]
      return [name, { description: spec.description, schema: schemaOf(spec.schema) }]
    })
  )
}

function parametersOf(op: OperationSpec): unknown[] {
  const parameters: unknown[] = []
  for (const [location, schema] of [
    ['path', op.params],
    ['query', op.query]
  ] as const) {
    if (schema === undefined) continue
    const object = schema as unknown as { properties: Record<string, TSchema>; required?: string[] }
    for (const [name, property] of Object.entries(object.properties)) {
      const json = schemaOf(property) as { description?: string }
      const { description, ...rest } = json
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

function responsesOf(op: OperationSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [op.success.status]: {
      description: op.success.description,
      headers: headersOf([...op.success.headers, ...RATE_LIMIT_HEADERS, 'X-Request-Id']),
      content: contentOf(op.success.schema, op.examples.success)
    }
  }
  for (const [status, codes] of errorStatuses(errorCodesOf(op))) {
    const extra: ResponseHeaderName[] = status === 429 || status === 503 ? ['Retry-After'] : status === 401 ? ['WWW-Authenticate'] : []
    if (op.deprecated !== undefined) extra.push('Deprecation', 'Sunset')
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join('; '),
      headers: headersOf([...extra, ...RATE_LIMIT_HEADERS, 'X-Request-Id']),
      content: contentOf(ErrorBody, undefined, errorExamples(codes))
    }
  }
  return responses
}

/** One example Error body per code the status can carry, named by the code. */
export function errorExamples(codes: readonly ErrorCode[]): Record<string, { summary: string; value: ErrorBody }> {
  return Object.fromEntries(
    codes.map((code) => [
      code,
      { summary: ERROR_DESCRIPTIONS[code], value: { code, message: ERROR_EXAMPLE_MESSAGES[code], status: ERROR_STATUS[code] } }
    ])
  )
}

function operationOf(op: OperationSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: op.tags
  }
  if (op.deprecated !== undefined) {
    out.deprecated = true
    out['x-sunset'] = op.deprecated.sunset.toISOString()
  }
  const parameters = parametersOf(op)
  if (parameters.length > 0) out.parameters = parameters
  if (op.body !== undefined) {
    out.requestBody = { required: true, content: contentOf(op.body, op.examples.body) }
  }
  out.responses = responsesOf(op)
  return out
}

/** The OpenAPI 3.1 document, generated from the same schemas that validate requests. */
export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of OPERATIONS) {
    paths[op.path] ??= {}
    paths[op.path]![op.method.toLowerCase()] = operationOf(op)
  }
  // x-internal: false tells inventory tools both servers are meant for the API's public users.
  const servers = [{ url: options.publicBaseUrl, description: 'Production', 'x-internal': false }]
  if (options.stagingBaseUrl !== undefined) servers.push({ url: options.stagingBaseUrl, description: 'Staging', 'x-internal': false })
  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store API',
      version: API_VERSION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      contact: { name: 'Animal Store API support', email: 'api@animal-store.example', url: 'https://animal-store.example/support' },
      description:
        'List, add and (deprecated) get the animals of a store. Every operation needs `Authorization: Bearer <API key>`. ' +
        'Rate limits by plan are reported on every response; see the error codes in `ErrorCode`. ' +
        'Int64 values beyond 2^53 are exact JSON numbers; a client whose JSON parser rounds them asks for them as strings ' +
        'with `Accept` (and `Content-Type`) `application/json;IEEE754Compatible=true`.'
    },
    servers,
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Pets', description: 'The animals of the store' },
      { name: 'Rate limits', description: "The caller's own use of its plan" }
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`as_live_...`) created with `animal-store keys create`' }
      },
      schemas: Object.fromEntries(
        Object.entries(COMPONENTS)
          .map(([name, schema]): [string, unknown] => [name, schemaOf(schema, schema)])
          .concat(
            Object.entries(COMPONENTS)
              .filter(([, schema]) => WITH_INT64.has(schema))
              .map(([name, schema]): [string, unknown] => [`${name}IEEE754`, schemaOf(schema, schema, true)])
          )
      ),
      'x-error-codes': Object.fromEntries(ERROR_CODES.map((code) => [code, ERROR_DESCRIPTIONS[code]]))
    }
  }
}
