import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import { startApp } from '../helpers/app.ts'

/** Opens a connection, writes `bytes`, then stalls; resolves with what the server sent and when it closed. */
function stall(origin: string, bytes: string): Promise<{ response: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(origin)
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let response = ''
    socket.setTimeout(10_000, () => reject(new Error('the server never gave up on the slow client')))
    socket.on('data', (chunk) => {
      response += chunk.toString()
    })
    socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }))
    socket.on('error', () => {})
    socket.write(bytes)
  })
}

describe('slow-client protection', () => {
  const env = { HEADERS_TIMEOUT_MS: '700', REQUEST_TIMEOUT_MS: '1500', KEEP_ALIVE_TIMEOUT_MS: '500' }

  test('headers that never finish are cut off with 408 and an Error body', async (t) => {
    const app = await startApp(t, { env })
    const { response, closedAfterMs } = await stall(app.origin, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: ')
    assert.match(response, /^HTTP\/1\.1 408 /)
    assert.match(response, /"code":"request_timeout"/)
    assert.match(response, /x-request-id: /i)
    assert.ok(closedAfterMs < 5000, `closed after ${closedAfterMs} ms`)
  })

  test('a body that never finishes is cut off with 408 and an Error body', async (t) => {
    const app = await startApp(t, { env })
    const key = await app.key({ plan: 'pro' })
    const { response, closedAfterMs } = await stall(
      app.origin,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":'
    )
    assert.match(response, /^HTTP\/1\.1 408 /)
    assert.match(response, /"code":"request_timeout"/)
    assert.ok(closedAfterMs >= 1000 && closedAfterMs < 6000, `closed after ${closedAfterMs} ms`)
    const pets = (await (await app.fetch('/v1/pets')).json()) as unknown[]
    assert.equal(pets.length, 0, 'nothing half-written')
  })

  test('an idle keep-alive connection is closed', async (t) => {
    const app = await startApp(t, { env })
    const key = await app.key({ plan: 'pro' })
    const { response, closedAfterMs } = await stall(app.origin, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`)
    assert.match(response, /^HTTP\/1\.1 200 /)
    assert.ok(closedAfterMs < 5000, `closed after ${closedAfterMs} ms`)
  })

  test('the server stays healthy for others meanwhile', async (t) => {
    const app = await startApp(t, { env })
    const stalled = Array.from({ length: 20 }, () => stall(app.origin, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n'))
    assert.equal((await app.fetch('/healthz', { key: null })).status, 200)
    assert.equal((await app.fetch('/v1/pets')).status, 200)
    await Promise.all(stalled)
  })
})
