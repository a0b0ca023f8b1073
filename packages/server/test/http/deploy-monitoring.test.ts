import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'
import { postJson, startApp } from '../helpers/app.ts'

// The alert rules and the dashboard of deploy/: rules that load and whose unit tests pass under
// promtool, and expressions that name only metrics a live instance exports.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const ALERTS = `${ROOT}deploy/prometheus/alerts.yml`
const ALERT_TESTS = `${ROOT}deploy/prometheus/alerts.test.yml`
const DASHBOARD = `${ROOT}deploy/grafana/animal-store.json`
/** Made by Prometheus for every scrape target, not by the service. */
const FROM_PROMETHEUS = new Set(['up'])

function promtoolSkip(): string | false {
  if (spawnSync('promtool', ['--version']).status === 0) return false
  const reason = 'promtool is missing (apt-get install -y prometheus)'
  if (process.env.CI === 'true') throw new Error(`the alert rules must be checked by promtool under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the promtool checks of deploy/prometheus: ${reason}\n\n`)
  return reason
}

/** The metric names a PromQL expression selects (`name{...}`; every expression here gives its selectors braces). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g)].map((match) => match[1]!)
}

/** Every series name a /metrics text can hold: each family's own, and a histogram's _bucket, _sum and _count. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>()
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!)
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix)
  }
  return names
}

function alertExpressions(): Array<{ alert: string; expr: string }> {
  const text = readFileSync(ALERTS, 'utf8')
  // Each rule is `- alert: Name` then `expr: one line` or `expr: |` and an indented block.
  const rules = [...text.matchAll(/- alert: (\S+)\n[\s\S]*?expr: (?:\|\n((?: {10,}.*\n)+)|(.*)\n)/g)]
  return rules.map(([, alert, block, line]) => ({ alert: alert!, expr: (block ?? line)!.trim() }))
}

function dashboardExpressions(): Array<{ panel: string; expr: string }> {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> }
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })))
}

describe('deploy/: alert rules and the dashboard', () => {
  test('promtool loads every rule and its unit tests pass, each rule firing and not', { skip: promtoolSkip() }, () => {
    const checked = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' })
    assert.equal(checked.status, 0, checked.stdout + checked.stderr)
    assert.match(checked.stdout, /SUCCESS: 7 rules found/)
    const tested = spawnSync('promtool', ['test', 'rules', ALERT_TESTS], { encoding: 'utf8' })
    assert.equal(tested.status, 0, tested.stdout + tested.stderr)
    const tests = readFileSync(ALERT_TESTS, 'utf8')
    for (const { alert } of alertExpressions()) {
      assert.ok((tests.match(new RegExp(`alertname: ${alert}\\n`, 'g')) ?? []).length >= 2, `${alert} is tested firing and not firing`)
    }
  })

  test('every expression of the rules and the dashboard names only metrics a live instance exports', async (t) => {
    const app = await startApp(t)
    // One of each kind of event, so every labelled series exists: a request, a refusal, a ban, a readiness probe.
    const key = await app.key({ plan: 'enterprise', perMinute: 1, perDay: 100 })
    for (let i = 0; i < 3; i++) await app.fetch('/v1/pets', { key })
    await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 })
    await app.fetch('/readyz', { key: null })
    const exported = exportedNames(await (await app.fetch('/metrics', { key: null })).text())
    assert.ok(exported.has('http_request_duration_seconds_bucket'), 'the latency histogram is read')

    const expressions = [
      ...alertExpressions().map(({ alert, expr }) => ({ where: `alert ${alert}`, expr })),
      ...dashboardExpressions().map(({ panel, expr }) => ({ where: `panel "${panel}"`, expr }))
    ]
    assert.equal(alertExpressions().length, 7, 'every rule of alerts.yml is read')
    assert.ok(expressions.length >= 17)
    for (const { where, expr } of expressions) {
      const names = metricsOf(expr)
      assert.ok(names.length > 0, `${where}: no metric found in ${expr}`)
      for (const name of names)
        assert.ok(FROM_PROMETHEUS.has(name) || exported.has(name), `${where} names ${name}, which /metrics does not export`)
    }
  })
})
