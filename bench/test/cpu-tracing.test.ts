// `npm run bench -- --cpu --tracing ...` end to end, as small as it runs: the service with tracing
// off against always_off and always_on, one server each, two short rounds. What it checks is
// that each side ran as named: the always_on servers exported spans to the harness's receiver,
// the always_off ones exported nothing, and the report compares both with tracing off.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parseTracingSettings, tracingTarget } from '../lib/cpu-tracing.ts'
import { SERVICE_BIN_PATH } from '../lib/targets.ts'
import { wrkVersion } from '../lib/wrk.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

function skipReason(): string | false {
  const missing = [
    wrkVersion() === undefined ? 'wrk is missing (apt-get install -y wrk)' : undefined,
    existsSync('/proc/self/task') ? undefined : 'no /proc/<pid>/task (not Linux)',
    existsSync(join(ROOT, SERVICE_BIN_PATH)) ? undefined : 'the service is not built (npm run build)'
  ].filter((m) => m !== undefined)
  if (missing.length === 0) return false
  const reason = missing.join('; ')
  if (process.env.CI === 'true') throw new Error(`the tracing CPU A/B must be tested under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the tracing CPU A/B test: ${reason}\n\n`)
  return reason
}

interface Results {
  tracing: Array<{ side: string; setting: { sampler: string }; sink: { exports: number; bytes: number; other: number } }>
  summaries: Array<{ workload: string; side: string; reference: string; rounds: number; errors: number }>
}

function bench(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bench/run.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })))
}

describe('CPU A/B of tracing', () => {
  test('reads sampler settings and their targets', () => {
    const settings = parseTracingSettings('always_off, traceidratio:0.1,parentbased_always_on')
    assert.deepEqual(
      settings.map((s) => [s.label, tracingTarget(s)]),
      [
        ['always_off', 0.95],
        ['traceidratio 0.1', 0.9],
        ['parentbased_always_on', 0.7]
      ]
    )
    for (const bad of ['', 'sometimes', 'always_on:1', 'traceidratio', 'traceidratio:2', 'always_on,always_on'])
      assert.throws(() => parseTracingSettings(bad), Error, bad)
  })

  test('runs tracing off against always_off and always_on; only always_on exports', { skip: skipReason(), timeout: 300_000 }, async (t) => {
    const out = mkdtempSync(join(tmpdir(), 'cpu-tracing-test-'))
    t.after(() => rmSync(out, { recursive: true, force: true }))
    const { code, output } = await bench([
      '--cpu',
      '--tracing',
      'always_off,always_on',
      '--quick',
      '--workloads',
      'get',
      '--rounds',
      '2',
      '--servers',
      '1',
      '--warmup',
      '0',
      '--run-ms',
      '10',
      '--no-realtime',
      '--out',
      out
    ])
    assert.equal(code, 0, output.slice(-3000))
    const results = JSON.parse(readFileSync(join(out, 'cpu-tracing-smoke.json'), 'utf8')) as Results
    const sink = (sampler: string) => results.tracing.find((s) => s.setting.sampler === sampler)!.sink
    assert.ok(sink('always_on').exports > 0 && sink('always_on').bytes > 0, `always_on exported: ${JSON.stringify(results.tracing)}`)
    assert.deepEqual(sink('always_off'), { exports: 0, bytes: 0, other: 0 })
    assert.deepEqual(
      results.summaries.map((s) => [s.workload, s.side, s.reference, s.rounds, s.errors]),
      [
        ['get', 'tracing always_off', 'tracing off', 2, 0],
        ['get', 'tracing always_on', 'tracing off', 2, 0]
      ]
    )
    assert.match(output, /get, always_on: [0-9.]+× of tracing off, target ≥ 0\.7×/)
  })
})
