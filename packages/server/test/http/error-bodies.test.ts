import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { startApp } from '../helpers/app.ts'
import { assertObserved, assertWellFormed, histogramSeries } from '../helpers/histogram.ts'

const LATENCY = 'http_request_duration_seconds'

/** Sends raw bytes and returns the raw response, for requests fetch will not make. */
async function raw(origin: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let data = ''
    socket.on('data', (chunk) => {
      data += chunk.toString()
    })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

function parseRaw(response: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head, body] = response.split('\r\n\r\n')
  return { status: Number(head!.split(' ')[1]), headers: head!.toLowerCase(), body: JSON.parse(body!) as Record<string, unknown> }
}

describe('errors from every layer are Error bodies', () => {
  test('unknown routes are 404, inside and outside /v1', async (t) => {
    const app = await startApp(t)
    await assertError(await app.fetch('/v1/store/orders'), 'not_found')
    await assertError(await app.fetch('/v1/pets/1/photos'), 'not_found')
    await assertError(await app.fetch('/v2/pets'), 'not_found')
    await assertError(await app.fetch('/nothing-here', { key: null }), 'not_found')
    await assertError(await app.fetch(`/v1/pets/${'9'.repeat(500)}`), 'not_found')
  })

  test('a known path with another method is 405 with Allow', async (t) => {
    const app = await startApp(t)
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const list = await app.fetch('/v1/pets', { method })
      assert.equal(list.headers.get('allow'), 'GET, HEAD, POST, OPTIONS')
      await assertError(list, 'method_not_allowed')
      const one = await app.fetch('/v1/pets/1', { method })
      assert.equal(one.headers.get('allow'), 'GET, HEAD, OPTIONS')
      assert.equal(one.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT', 'the deprecated path keeps its deprecation headers on a 405')
      await assertError(one, 'method_not_allowed')
    }
    await assertError(
      await app.fetch('/v1/pets/1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      'method_not_allowed'
    )
    // Methods beyond the common ones are 405 too, not 404.
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'SEARCH']) {
      const response = parseRaw(await raw(app.origin, `${method} /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
      assert.equal(response.status, 405, method)
      assert.equal(response.body.code, 'method_not_allowed')
      assert.match(response.headers, /allow: get, head, post, options/)
      const one = parseRaw(await raw(app.origin, `${method} /v1/pets/5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
      assert.equal(one.status, 405, `${method} /v1/pets/5`)
      assert.match(one.headers, /allow: get, head, options\r?\n/)
    }
  })

  test('malformed HTTP and a malformed URL get Error bodies', async (t) => {
    const app = await startApp(t)
    const garbage = parseRaw(await raw(app.origin, 'NOT HTTP AT ALL\r\n\r\n'))
    assert.equal(garbage.status, 400)
    assert.equal(garbage.body.code, 'bad_request')
    const badUrl = parseRaw(await raw(app.origin, 'GET /v1/pets/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
    assert.equal(badUrl.body.status, badUrl.status)
    assert.ok(['bad_request', 'not_found'].includes(badUrl.body.code as string))
    const huge = parseRaw(await raw(app.origin, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
    assert.equal(huge.status, 431)
    assert.equal(huge.body.code, 'header_fields_too_large')
  })

  test('a crash in a handler is 500 internal_error with no stack trace', async (t) => {
    const app = await startApp(t)
    const original = app.storage.pets.page.bind(app.storage.pets)
    app.storage.pets.page = async () => {
      throw new TypeError('boom at secret/internal/path.ts:12')
    }
    t.after(() => {
      app.storage.pets.page = original
    })
    const body = await assertError(await app.fetch('/v1/pets'), 'internal_error')
    assert.doesNotMatch(body.message, /boom|path\.ts|at /)
  })

  test('every response carries X-Request-Id (a sane one is echoed), nosniff and no-store', async (t) => {
    const app = await startApp(t)
    for (const path of ['/v1/pets', '/v1/nope', '/healthz', '/v1/openapi.json']) {
      const response = await app.fetch(path)
      assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(response.headers.get('cache-control'), 'no-store')
    }
    const echoed = await app.fetch('/v1/pets', { headers: { 'x-request-id': 'client-123_abc.DEF' } })
    assert.equal(echoed.headers.get('x-request-id'), 'client-123_abc.DEF')
    for (const insane of ['has space', 'a'.repeat(129), 'semi;colon', '']) {
      const response = await app.fetch('/v1/pets', { headers: { 'x-request-id': insane } })
      assert.notEqual(response.headers.get('x-request-id'), insane)
      assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
    }
  })

  test('healthz and readyz', async (t) => {
    const app = await startApp(t)
    assert.deepEqual(await (await app.fetch('/healthz', { key: null })).json(), { status: 'ok' })
    const ready = await app.fetch('/readyz', { key: null })
    assert.equal(ready.status, 200)
    assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok' } })
    await app.storage.close()
    const down = await app.fetch('/readyz', { key: null })
    const body = (await down.json()) as Record<string, unknown>
    assert.equal(down.status, 503)
    assert.equal(body.code, 'unavailable')
    assert.match(String((body.checks as Record<string, string>).database), /^unavailable/)
  })

  test('metrics count requests by route and status, and time each in the latency histogram', async (t) => {
    const app = await startApp(t)
    const scrape = async () => (await app.fetch('/metrics', { key: null })).text()
    const pets = { method: 'GET', route: '/v1/pets' }
    const before = histogramSeries(await scrape(), LATENCY, pets)
    const started = performance.now()
    for (let i = 0; i < 5; i++) assert.equal((await app.fetch('/v1/pets')).status, 200)
    const wallSeconds = (performance.now() - started) / 1000
    await app.fetch('/v1/nope')
    const text = await scrape()
    assert.match(text, /http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 5$/m)
    assert.match(text, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m)
    assertObserved(before, histogramSeries(text, LATENCY, pets), 5, wallSeconds, 'GET /v1/pets')
    const unmatched = histogramSeries(text, LATENCY, { method: 'GET', route: 'unmatched' })
    assertWellFormed(unmatched, 'GET unmatched')
    assert.equal(unmatched.count, 1)
  })
})
