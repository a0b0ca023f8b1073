import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import * as contract from '@animal-store/contract'
import {
  AnimalStoreClient,
  ERROR_CODE_VALUES,
  OPERATIONS,
  PAGE_SIZE,
  PET_STATUS_VALUES,
  type ErrorBody,
  type ErrorCode,
  type Int64,
  type NewPet,
  type Pet,
  type PetStatus
} from '../src/index.ts'
import { GENERATED_PATH, renderApiTypes } from '../scripts/api-types.ts'

const generated = readFileSync(new URL(`../${GENERATED_PATH}`, import.meta.url), 'utf8')
const REGENERATE =
  'the client types drifted from the OpenAPI document: run `npm run generate -w @animal-store/client` and commit the result'

// Compile-time: `npm run typecheck` fails when the client's types and the contract's differ.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const sameTypes: [
  Equal<Pet, contract.Pet>,
  Equal<NewPet, contract.NewPet>,
  Equal<PetStatus, contract.PetStatus>,
  Equal<ErrorCode, contract.ErrorCode>,
  Equal<ErrorBody, contract.ErrorBody>,
  Equal<Int64, contract.Int64>
] = [true, true, true, true, true, true]

describe('client types come from the contract', () => {
  test('the generated types match the OpenAPI document built from the contract', () => {
    assert.equal(generated, renderApiTypes(contract.buildOpenApi({ publicBaseUrl: 'http://127.0.0.1:8080/v1' })), REGENERATE)
  })

  test('and the committed openapi.json, the document the service serves', () => {
    const committed = contract.parseJsonLossless(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as Record<
      string,
      unknown
    >
    assert.equal(generated, renderApiTypes(committed), REGENERATE)
  })

  test('the run-time values agree with the contract', () => {
    assert.ok(sameTypes.every(Boolean))
    assert.deepEqual(ERROR_CODE_VALUES, contract.ERROR_CODES)
    assert.deepEqual(PET_STATUS_VALUES, contract.PET_STATUSES)
    assert.deepEqual(PAGE_SIZE, {
      minimum: contract.PAGE_LIMIT_MIN,
      maximum: contract.PAGE_LIMIT_MAX,
      default: contract.PAGE_LIMIT_DEFAULT
    })
    assert.equal(OPERATIONS.getPet.sunset, contract.GET_PET_SUNSET.toISOString())
  })

  test('the client has a method for every operation of the document, and getPet is marked deprecated', () => {
    // The design names the SDK methods of getRateLimit and getUsage `rateLimit()` and `usage()`; the others carry their operationId.
    const methodOf: Record<string, string> = { getRateLimit: 'rateLimit', getUsage: 'usage' }
    for (const op of contract.OPERATIONS) {
      const method = methodOf[op.operationId] ?? op.operationId
      assert.equal(typeof AnimalStoreClient.prototype[method as keyof AnimalStoreClient], 'function', op.operationId)
      assert.deepEqual(OPERATIONS[op.operationId as keyof typeof OPERATIONS], {
        method: op.method,
        path: op.path,
        ...(op.deprecated === undefined ? {} : { deprecated: true, sunset: op.deprecated.sunset.toISOString() })
      })
    }
    const source = readFileSync(new URL('../src/client.ts', import.meta.url), 'utf8')
    assert.match(source, /@deprecated The service removes this operation on 2030-12-05[^]*?\n {2}async getPet\(/)
  })
})
