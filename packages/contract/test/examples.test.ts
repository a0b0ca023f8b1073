import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { buildAdminOpenApi } from '../src/admin/openapi.ts'
import { OPERATOR_ERROR_STATUS, OperatorErrorBody } from '../src/admin/errors.ts'
import { ADMIN_COMMON_ERRORS, ADMIN_OPERATIONS } from '../src/admin/operations.ts'
import { ERROR_STATUS, ErrorBody } from '../src/errors.ts'
import { stringifyJson, parseJsonLossless } from '../src/json.ts'
import { buildOpenApi } from '../src/openapi.ts'
import { errorCodesIn, statusesOf, type OperationSpec } from '../src/operation-spec.ts'
import { COMMON_ERRORS, OPERATIONS } from '../src/operations.ts'

interface MediaType {
  example?: unknown
  examples?: Record<string, { value: unknown }>
}
interface DocOperation {
  parameters?: Array<{ name: string; in: string; example?: unknown }>
  requestBody?: { content: Record<string, MediaType> }
  responses: Record<string, { content?: Record<string, MediaType> }>
}
type Doc = { paths: Record<string, Record<string, DocOperation>> }

// The served documents, read back as a user's lossless parser reads them: what the examples say is what tools see.
const read = (doc: Record<string, unknown>) => parseJsonLossless(stringifyJson(doc)) as Doc
const DOCUMENTS = [
  {
    name: 'public',
    doc: read(buildOpenApi({ publicBaseUrl: 'https://api.animal-store.example/v1' })),
    operations: OPERATIONS as readonly OperationSpec<string>[],
    common: COMMON_ERRORS as readonly string[],
    status: ERROR_STATUS as Record<string, number>,
    errorBody: ErrorBody as TSchema
  },
  {
    name: 'operator',
    doc: read(buildAdminOpenApi({ adminBaseUrl: 'https://ops.animal-store.internal/admin/v1' })),
    operations: ADMIN_OPERATIONS as readonly OperationSpec<string>[],
    common: ADMIN_COMMON_ERRORS as readonly string[],
    status: OPERATOR_ERROR_STATUS as Record<string, number>,
    errorBody: OperatorErrorBody as TSchema
  }
]

function check(schema: TSchema, value: unknown, where: string): void {
  const validator = Compile(schema)
  assert.ok(validator.Check(value), `${where}: ${stringifyJson(value)} breaks its schema: ${stringifyJson([...validator.Errors(value)])}`)
}

function examplesOf(media: MediaType | undefined, where: string): unknown[] {
  assert.ok(media, `${where} has application/json content`)
  const values = media.examples === undefined ? [media.example] : Object.values(media.examples).map((e) => e.value)
  assert.ok(values.length > 0 && values.every((v) => v !== undefined), `${where} has an example`)
  return values
}

function parameterSchema(op: OperationSpec<string>, name: string): TSchema | undefined {
  const propertiesOf = (schema: unknown) => (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {}
  const properties: Record<string, TSchema> = { ...propertiesOf(op.params), ...propertiesOf(op.query) }
  return properties[name] ?? op.requestHeaders?.find((header) => header.name === name)?.schema
}

for (const { name, doc, operations, common, status: statusOf, errorBody } of DOCUMENTS) {
  for (const op of operations) {
    test(`${name} ${op.operationId}: every parameter, the body and every response have examples valid against their schemas`, () => {
      const served = doc.paths[op.path]?.[op.method.toLowerCase()]
      assert.ok(served, `${op.operationId} is in the document`)
      for (const parameter of served.parameters ?? []) {
        const schema = parameterSchema(op, parameter.name)
        assert.ok(schema, `${op.operationId} knows parameter ${parameter.name}`)
        // Every parameter but the cursor, which only the service can make.
        if (parameter.name === 'cursor') continue
        assert.notEqual(parameter.example, undefined, `${op.operationId} parameter ${parameter.name} has an example`)
        check(schema, parameter.example, `${op.operationId} parameter ${parameter.name}`)
      }
      if (op.body !== undefined) {
        for (const value of examplesOf(served.requestBody?.content['application/json'], `${op.operationId} request body`)) {
          check(op.body, value, `${op.operationId} request body`)
        }
      }
      const byStatus = statusesOf(errorCodesIn(op, common), statusOf)
      const statuses = [String(op.success.status), ...[...byStatus.keys()].map(String)]
      assert.deepEqual(Object.keys(served.responses).sort(), statuses.sort())
      for (const [status, response] of Object.entries(served.responses)) {
        const where = `${op.operationId} ${status} response`
        if (status === '204') {
          assert.equal(response.content, undefined, `${where} has no body`)
          continue
        }
        // A streamed answer (NDJSON) is documented in its own media type, its schema one line's.
        const mediaType = status === String(op.success.status) ? (op.success.mediaType ?? 'application/json') : 'application/json'
        const values = examplesOf(response.content?.[mediaType], where)
        if (status === String(op.success.status)) {
          for (const value of values) check(op.success.schema, value, where)
          continue
        }
        const codes = (response.content!['application/json']!.examples ?? {}) as Record<string, { value: { code: string; status: number } }>
        assert.deepEqual(Object.keys(codes), byStatus.get(Number(status)), `${where}: one Error example per code it can carry`)
        for (const [code, { value }] of Object.entries(codes)) {
          check(errorBody, value, `${where} (${code})`)
          assert.equal(value.code, code)
          assert.equal(value.status, statusOf[code])
          assert.equal(value.status, Number(status))
        }
      }
    })
  }
}

test('the examples carry an int64 above 2^53, kept exactly in the document text', () => {
  const text = stringifyJson(buildOpenApi({ publicBaseUrl: 'https://api.animal-store.example/v1' }))
  assert.match(text, /"categoryId": ?9223372036854775807\b/)
  assert.doesNotMatch(text, /9223372036854776000/)
})
