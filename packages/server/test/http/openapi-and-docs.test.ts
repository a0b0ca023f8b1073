import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { ERROR_CODES, parseJsonLossless, stringifyJson } from '@animal-store/contract'
import { loadConfig } from '../../src/config.ts'
import { openApiText } from '../../src/routes/openapi.ts'
import { startApp } from '../helpers/app.ts'

const COMMITTED = new URL('../../../../openapi.json', import.meta.url)

/** The parts of an OpenAPI 3.1 document these tests read (parsed losslessly: int64 bounds may be bigint). */
interface Schema {
  type?: string
  format?: string
  minimum?: number | bigint
  maximum?: number | bigint
  default?: unknown
  description?: string
  enum?: unknown[]
  properties?: Record<string, Schema>
  additionalProperties?: boolean
  $ref?: string
}

interface Operation {
  operationId?: string
  deprecated?: boolean
  parameters?: Array<{ name: string; in: string; schema: Schema }>
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }>
}

interface OpenApiDoc {
  openapi: string
  info: { version: string }
  servers: Array<{ url: string; description?: string }>
  security: unknown
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, { type: string; scheme?: string }>; schemas: Record<string, Schema> }
}

/** The operation `method` of `path`; fails unless the document has it. */
function operation(doc: OpenApiDoc, path: string, method: string): Operation {
  const found = doc.paths[path]?.[method]
  assert.ok(found, `the document has ${method.toUpperCase()} ${path}`)
  return found
}

/** The named component schema; fails unless the document has it. */
function schema(doc: OpenApiDoc, name: string): Schema {
  const found = doc.components.schemas[name]
  assert.ok(found, `the document has the schema ${name}`)
  return found
}

describe('OpenAPI document', () => {
  test('the committed openapi.json matches the code (regenerate with `npm run openapi`)', () => {
    const generated = openApiText(loadConfig({}))
    assert.equal(readFileSync(COMMITTED, 'utf8'), generated, 'openapi.json drifted from the contract: run `npm run openapi` and commit it')
  })

  test('served at /v1/openapi.json with the servers from the environment', async (t) => {
    const app = await startApp(t, {
      env: { PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1/' }
    })
    const response = await app.fetch('/v1/openapi.json', { key: null })
    assert.equal(response.status, 200)
    const doc = parseJsonLossless(await response.text()) as OpenApiDoc
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(doc.info.version, '1.0.0')
    assert.deepEqual(doc.servers, [
      { url: 'https://api.example.com/v1', description: 'Production', 'x-internal': false },
      { url: 'https://staging.example.com/v1', description: 'Staging', 'x-internal': false }
    ])
  })

  test('operations, deprecation, security, int64 bounds and the closed error enum', () => {
    const doc = parseJsonLossless(openApiText(loadConfig({}))) as OpenApiDoc
    const listPets = operation(doc, '/pets', 'get')
    const createPet = operation(doc, '/pets', 'post')
    const getPet = operation(doc, '/pets/{petId}', 'get')
    assert.equal(listPets.operationId, 'listPets')
    assert.equal(createPet.operationId, 'createPet')
    assert.equal(getPet.operationId, 'getPet')
    assert.equal(getPet.deprecated, true)
    assert.equal(listPets.deprecated, undefined)
    assert.deepEqual(doc.security, [{ bearerAuth: [] }])
    assert.deepEqual(doc.components.securitySchemes.bearerAuth?.type, 'http')
    assert.deepEqual(doc.components.securitySchemes.bearerAuth?.scheme, 'bearer')
    assert.deepEqual(schema(doc, 'ErrorCode').enum, ERROR_CODES)
    const newPet = schema(doc, 'NewPet')
    const categoryId = newPet.properties?.categoryId
    assert.deepEqual(categoryId, {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: 9223372036854775807n,
      description: categoryId?.description
    })
    assert.equal(newPet.properties?.status?.default, 'available')
    assert.equal(newPet.additionalProperties, false)
    const limit = listPets.parameters?.find((p) => p.name === 'limit')
    assert.deepEqual([limit?.schema.minimum, limit?.schema.maximum, limit?.schema.default], [1, 100, 20])
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const status of ['401', '429']) assert.ok(op.responses[status], `${method} ${path} documents ${status}`)
        for (const [status, response] of Object.entries(op.responses)) {
          for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy']) {
            assert.ok(response.headers?.[header], `${method} ${path} ${status} documents ${header}`)
          }
          if (Number(status) >= 400) assert.equal(response.content?.['application/json']?.schema.$ref, '#/components/schemas/Error')
        }
      }
    }
    assert.ok(createPet.responses['201']?.headers?.Location)
    assert.ok(listPets.responses['200']?.headers?.Link)
    assert.ok(getPet.responses['200']?.headers?.Sunset)
    assert.ok(getPet.responses['404'])
    assert.ok(getPet.responses['410'])
    assert.ok(createPet.responses['415'] && createPet.responses['413'])
    assert.ok(!stringifyJson(doc).includes('x-rule') && !stringifyJson(doc).includes('x-int64'), 'internal annotations do not leak')
  })

  test('/docs serves the reference page and its assets from this service only', async (t) => {
    const app = await startApp(t)
    const page = await app.fetch('/docs', { key: null })
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/)
    const html = await page.text()
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    assert.ok(assets.length >= 3)
    for (const asset of assets) {
      assert.ok(asset.startsWith('/docs/'), `${asset} is served locally`)
      const response = await app.fetch(asset, { key: null })
      assert.equal(response.status, 200, asset)
      assert.ok((await response.arrayBuffer()).byteLength > 0)
    }
    assert.match(await (await app.fetch('/docs/init.js', { key: null })).text(), /\/v1\/openapi\.json/)
    assert.equal((await app.fetch('/docs/../package.json', { key: null })).status, 404)
  })
})
