import assert from 'node:assert/strict'
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '@animal-store/contract'

/** Asserts the response is exactly an Error body with this code, and its status. */
export async function assertError(
  response: Response,
  code: ErrorCode,
  messageIncludes?: string | RegExp
): Promise<{ code: string; message: string; status: number }> {
  const text = await response.text()
  assert.equal(response.status, ERROR_STATUS[code], `expected ${ERROR_STATUS[code]} ${code}, got ${response.status}: ${text}`)
  assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/)
  const body = JSON.parse(text) as { code: string; message: string; status: number }
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.code, code)
  assert.equal(body.status, response.status)
  assert.ok(ERROR_CODES.includes(body.code))
  assert.ok(body.message.length > 0)
  if (messageIncludes !== undefined) {
    if (typeof messageIncludes === 'string')
      assert.ok(body.message.includes(messageIncludes), `message ${JSON.stringify(body.message)} should mention ${messageIncludes}`)
    else assert.match(body.message, messageIncludes)
  }
  return body
}
