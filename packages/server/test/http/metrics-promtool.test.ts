import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, test, type TestContext } from 'node:test'
import { startApp, postJson } from '../helpers/app.ts'
import { assertObserved, assertWellFormed, histogramSeries } from '../helpers/histogram.ts'

const LATENCY = 'http_request_duration_seconds'

// Debian's `prometheus` package ships promtool: `apt-get install -y prometheus` (CI installs it).
function promtoolSkip(): string | false {
  if (spawnSync('promtool', ['--version']).status === 0) return false
  const reason = 'promtool is missing (apt-get install -y prometheus)'
  if (process.env.CI === 'true') throw new Error(`/metrics must be checked by promtool under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the promtool check of /metrics: ${reason}\n\n`)
  return reason
}

/** A collector that takes every request and never answers, until `release()`: then it answers each 200 at once. */
async function silentCollector(t: TestContext): Promise<{ endpoint: string; release: () => void }> {
  const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'
  const held = new Set<Socket>()
  let answering = false
  const server = createServer((socket) => {
    socket.on('error', () => socket.destroy())
    socket.resume()
    if (answering) return void socket.end(OK)
    held.add(socket)
    socket.on('close', () => held.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const release = () => {
    answering = true
    for (const socket of held) socket.end(OK)
  }
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release }
}

function droppedSpans(text: string): number | undefined {
  const line = /^tracing_spans_dropped_total (\S+)$/m.exec(text)
  return line === null ? undefined : Number(line[1])
}

describe('/metrics under promtool', { skip: promtoolSkip() }, () => {
  test('promtool check metrics finds nothing after successes, errors and refusals; the latency histogram adds up', async (t) => {
    const app = await startApp(t)
    const scrape = async () => (await app.fetch('/metrics', { key: null })).text()
    const list = { method: 'GET', route: '/v1/pets' }
    const create = { method: 'POST', route: '/v1/pets' }
    const before = { list: histogramSeries(await scrape(), LATENCY, list), create: histogramSeries(await scrape(), LATENCY, create) }
    // Every request below is awaited in full, one at a time, and counted by its route.
    const made = { list: 0, create: 0 }
    const started = performance.now()
    made.create++
    await (await postJson(app, '/v1/pets', { name: 'Rex', categoryId: '9223372036854775807' })).arrayBuffer()
    made.create++
    assert.equal((await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 7 })).status, 201)
    made.list++
    assert.equal((await app.fetch('/v1/pets?limit=1')).status, 200)
    assert.equal((await app.fetch('/v1/pets/1')).status, 200)
    made.list++
    assert.equal((await app.fetch('/v1/pets?limit=0')).status, 400)
    made.list++
    assert.equal((await app.fetch('/v1/pets', { key: null })).status, 401)
    assert.equal((await app.fetch('/nowhere', { key: null })).status, 404)
    // A free key hammered past its minute limit: refusals by plan and window.
    const free = await app.key({ plan: 'free' })
    let status = 200
    for (let i = 0; i < 200 && status !== 429; i++) {
      made.list++
      status = (await app.fetch('/v1/pets?limit=1', { key: free })).status
    }
    assert.equal(status, 429)
    const wallSeconds = (performance.now() - started) / 1000
    const text = await scrape()
    assert.match(text, /^http_requests_total\{/m)
    assert.doesNotMatch(text, /tracing_spans_dropped_total/, 'no tracing metric while tracing is off')
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
    assert.equal(`${check.stdout}${check.stderr}`.trim(), '', 'promtool check metrics has findings')
    assert.equal(check.status, 0)
    // Each route's series holds exactly the requests made to it, 2xx, 4xx and 429 alike.
    assert.ok(made.list > 60, `the hammering went past the limit (${made.list} lists)`)
    assertObserved(before.list, histogramSeries(text, LATENCY, list), made.list, wallSeconds, 'GET /v1/pets')
    assertObserved(before.create, histogramSeries(text, LATENCY, create), made.create, wallSeconds, 'POST /v1/pets')
    for (const route of ['/v1/pets/:petId', 'unmatched', '/metrics']) {
      assertWellFormed(histogramSeries(text, LATENCY, { method: 'GET', route }), `GET ${route}`)
    }
  })

  test('with tracing on and a collector that never answers, spans the full queue drops are counted; promtool stays clean', async (t) => {
    const collector = await silentCollector(t)
    const app = await startApp(t, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_TRACES_SAMPLER: 'always_on' } })
    const scrape = async () => (await app.fetch('/metrics', { key: null })).text()
    assert.equal(droppedSpans(await scrape()), 0, 'the counter is there from the start while tracing is on')
    const key = await app.key({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    // One server span each: 512 go out in the first export (which never ends), 2,048 wait, the rest are dropped.
    const requests = 3000
    for (let sent = 0; sent < requests; sent += 50) {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await app.fetch('/v1/pets?limit=1', { key })
          await response.arrayBuffer()
          return response.status
        })
      )
      assert.deepEqual(new Set(statuses), new Set([200]))
    }
    const text = await scrape()
    const dropped = droppedSpans(text)
    assert.ok(dropped !== undefined && dropped >= requests - 512 - 2048, `spans dropped: ${dropped}`)
    assert.ok(dropped <= requests + 2, `no more dropped than were made: ${dropped}`)
    assert.match(text, /^# TYPE tracing_spans_dropped_total counter$/m)
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
    assert.equal(`${check.stdout}${check.stderr}`.trim(), '', 'promtool check metrics has findings')
    assert.equal(check.status, 0)
    // The held export is answered, so closing sends what waits rather than waiting out the export timeout.
    collector.release()
    await app.close()
  })
})
