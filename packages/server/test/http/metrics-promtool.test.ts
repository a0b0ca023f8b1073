import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
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
})
