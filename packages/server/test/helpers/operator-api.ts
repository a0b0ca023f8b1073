import assert from 'node:assert/strict'
import {
  OPERATOR_ERROR_CODES,
  OPERATOR_ERROR_STATUS,
  type AdminOperationSpec,
  type KeyWithSecret,
  type OperatorErrorCode
} from '@animal-store/contract'
import type { TestApp } from './app.ts'
import { recordIssuedKey } from './logs.ts'

/** Asserts the response is exactly an Error body of the operator API with this code, and its status. */
export async function assertOperatorError(
  response: Response,
  code: OperatorErrorCode,
  messageIncludes?: string | RegExp
): Promise<{ code: string; message: string; status: number }> {
  const text = await response.text()
  const status = OPERATOR_ERROR_STATUS[code]
  assert.equal(response.status, status, `expected ${status} ${code}, got ${response.status}: ${text}`)
  assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/)
  assert.equal(response.headers.get('cache-control'), 'no-store')
  const body = JSON.parse(text) as { code: OperatorErrorCode; message: string; status: number }
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.code, code)
  assert.equal(body.status, response.status)
  assert.ok(OPERATOR_ERROR_CODES.includes(body.code))
  if (typeof messageIncludes === 'string')
    assert.ok(body.message.includes(messageIncludes), `${JSON.stringify(body.message)} should mention ${messageIncludes}`)
  else if (messageIncludes !== undefined) assert.match(body.message, messageIncludes)
  return body
}

/**
 * A request the operation answers with success when made by an admin: its path (the key's id, for
 * a customer's operations the key's customer, for a plan's the id of a plan nothing is on, filled
 * in) and body.
 */
export function sampleRequest(
  op: AdminOperationSpec,
  ids: { keyId: string; customerId: string; planId: string }
): { path: string; init: RequestInit } {
  const { keyId, customerId, planId } = ids
  const id = op.path.startsWith('/plans') ? planId : op.path.startsWith('/customers') ? customerId : keyId
  // The export needs its range; every other operation's query is optional.
  const query = op.operationId === 'exportUsage' ? '?from=2026-06-14T00:00:00Z&to=2026-06-15T00:00:00Z' : ''
  const path = `/admin/v1${op.path.replace('{id}', id)}${query}`
  const bodies: Record<string, unknown> = {
    createKey: { plan: 'pro', name: 'sample' },
    updateKey: { name: 'renamed' },
    rotateKey: { graceSeconds: 60 },
    createPlan: { id: `${planId}-new`, name: 'Sample', limits: { perMinute: 10, perDay: 100 } },
    createCustomer: { name: 'Sample', plan: 'pro' },
    updateCustomer: { name: 'Renamed' },
    updatePlan: { name: 'Renamed' }
  }
  const body = bodies[op.operationId]
  return body === undefined
    ? { path, init: { method: op.method } }
    : { path, init: { method: op.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } }
}

/** GETs a path of the operator API as the operator with `token`, expecting 200, and returns the parsed body. */
export async function readAdmin<T>(app: TestApp, path: string, token: string): Promise<T> {
  const response = await app.admin(path, { token })
  const text = await response.text()
  assert.equal(response.status, 200, `${path}: ${text}`)
  return JSON.parse(text) as T
}

/** Sends a JSON body to the operator API as the operator with `token`. */
export function sendAdmin(app: TestApp, method: 'POST' | 'PATCH', path: string, token: string, body?: unknown): Promise<Response> {
  return app.admin(path, {
    token,
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  })
}

/** Creates a key through the operator API (`createKey`) as the operator with `token`, expecting 201; its secret is recorded for the log check. */
export async function createKeyAs(app: TestApp, token: string, body: unknown): Promise<KeyWithSecret> {
  const response = await sendAdmin(app, 'POST', '/admin/v1/keys', token, body)
  const text = await response.text()
  assert.equal(response.status, 201, text)
  const key = JSON.parse(text) as KeyWithSecret
  recordIssuedKey(key.key)
  return key
}
