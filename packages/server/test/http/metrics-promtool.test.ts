import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { startApp, postJson } from '../helpers/app.ts'

// Debian's `prometheus` package ships promtool: `apt-get install -y prometheus` (CI installs it).
function promtoolSkip(): string | false {
  if (spawnSync('promtool', ['--version']).status === 0) return false
  const reason = 'promtool is missing (apt-get install -y prometheus)'
  if (process.env.CI === 'true') throw new Error(`/metrics must be checked by promtool under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the promtool check of /metrics: ${reason}\n\n`)
  return reason
}

describe('/metrics under promtool', { skip: promtoolSkip() }, () => {
  test('promtool check metrics finds nothing after successes, errors and refusals', async (t) => {
    const app = await startApp(t)
    await postJson(app, '/v1/pets', { name: 'Rex', categoryId: '9223372036854775807' })
    assert.equal((await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 7 })).status, 201)
    assert.equal((await app.fetch('/v1/pets?limit=1')).status, 200)
    assert.equal((await app.fetch('/v1/pets/1')).status, 200)
    assert.equal((await app.fetch('/v1/pets?limit=0')).status, 400)
    assert.equal((await app.fetch('/v1/pets', { key: null })).status, 401)
    assert.equal((await app.fetch('/nowhere', { key: null })).status, 404)
    // A free key hammered past its minute limit: refusals by plan and window.
    const free = await app.key({ plan: 'free' })
    let status = 200
    for (let i = 0; i < 200 && status !== 429; i++) status = (await app.fetch('/v1/pets?limit=1', { key: free })).status
    assert.equal(status, 429)
    const text = await (await app.fetch('/metrics', { key: null })).text()
    assert.match(text, /^http_requests_total\{/m)
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
    assert.equal(`${check.stdout}${check.stderr}`.trim(), '', 'promtool check metrics has findings')
    assert.equal(check.status, 0)
  })
})
