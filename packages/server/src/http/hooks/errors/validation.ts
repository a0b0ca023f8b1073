import type { FastifyInstance } from 'fastify'
import fastJson from 'fast-json-stringify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { toJsonSchema } from '@animal-store/contract'
import { ApiError } from '../../../domain/api-error.ts'

interface ObjectSchema {
  properties: Record<string, { type?: string; 'x-rule'?: string }>
  required?: string[]
}

interface SchemaError {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message: string
}

/** One message per failing field, naming the field and the rule it breaks. */
function describeErrors(schema: ObjectSchema, errors: readonly SchemaError[], where: 'body' | 'query'): string {
  const messages = new Set<string>()
  const noun = where === 'body' ? 'property' : 'query parameter'
  const allowed = Object.keys(schema.properties).join(', ')
  for (const error of errors) {
    const field = error.instancePath.slice(1).split('/')[0] ?? ''
    if (error.keyword === 'required') {
      for (const name of error.params.requiredProperties as string[]) messages.add(`${name} is required`)
    } else if (error.keyword === 'additionalProperties') {
      for (const name of error.params.additionalProperties as string[])
        messages.add(`unknown ${noun} ${JSON.stringify(name)}: allowed are ${allowed}`)
    } else if (field !== '' && error.keyword !== 'boolean') {
      const rule = error.keyword === '~refine' ? error.message : (schema.properties[field]?.['x-rule'] ?? error.message)
      messages.add(`${field} ${rule}`)
    } else if (field === '') {
      messages.add(`the ${where} ${error.message}`)
    }
  }
  return [...messages].join('; ')
}

/** The same words on every operation, whatever the name (an empty one included). */
function unknownParameter(schema: ObjectSchema, name: string): string {
  const names = Object.keys(schema.properties)
  const allowed = names.length === 0 ? 'this operation takes no query parameters' : `allowed are ${names.join(', ')}`
  const shown = name.length > 40 ? `${name.slice(0, 40)}...` : name
  return name === '' ? `a query parameter has no name: ${allowed}` : `unknown query parameter ${JSON.stringify(shown)}: ${allowed}`
}

/**
 * Query values arrive as strings; the schema says which are integers. An integer must be
 * plain decimal digits (no sign, exponent, fraction or spaces) and is never clamped.
 */
function decodeQuery(schema: ObjectSchema, query: Record<string, unknown>): Record<string, unknown> | string {
  const out: Record<string, unknown> = {}
  // for-in, not Object.entries: no array per request (the parser's object has no enumerable prototype keys).
  for (const name in query) {
    if (!Object.hasOwn(query, name)) continue
    const raw = query[name]
    if (!Object.hasOwn(schema.properties, name)) return unknownParameter(schema, name)
    if (Array.isArray(raw)) return `${name} must be given at most once`
    const property = schema.properties[name]
    if (property?.type === 'integer' && typeof raw === 'string') {
      out[name] = /^[0-9]+$/.test(raw) ? Number(raw) : raw
    } else {
      out[name] = raw
    }
  }
  return out
}

function bodyValidator(schema: TSchema) {
  const validator = Compile(schema)
  return (value: unknown) => {
    // No Content-Type and no body never reaches the JSON parser (which never yields null).
    if (value === undefined || value === null)
      return { error: new ApiError('unsupported_media_type', 'the body must be a JSON object sent with Content-Type: application/json') }
    if (validator.Check(value)) return { value }
    return {
      error: new ApiError('validation_failed', describeErrors(schema as unknown as ObjectSchema, validator.Errors(value), 'body'))
    }
  }
}

function queryValidator(schema: TSchema) {
  const validator = Compile(schema)
  const object = schema as unknown as ObjectSchema
  return (raw: unknown) => {
    const value = decodeQuery(object, raw as Record<string, unknown>)
    if (typeof value === 'string') return { error: new ApiError('validation_failed', value) }
    if (validator.Check(value)) return { value }
    return { error: new ApiError('validation_failed', describeErrors(object, validator.Errors(value), 'query')) }
  }
}

/** A contract schema's compiled JSON serializer: int64 written exactly, the shape enforced. */
export function compileSerializer(schema: unknown): (value: unknown) => string {
  return fastJson(toJsonSchema(schema, { int64Bounds: false }) as Parameters<typeof fastJson>[0])
}

/**
 * The contract's TypeBox schemas validate requests (compiled once per route) and drive the
 * compiled response serializers; Ajv and its coercions are not used.
 */
export function registerSchemaCompilers(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return bodyValidator(schema)
    if (httpPart === 'querystring') return queryValidator(schema)
    throw new Error(`no validator for ${httpPart ?? 'unknown part'}: parse it in the handler`)
  })
  app.setSerializerCompiler(({ schema }) => compileSerializer(schema))
}
