// The "address flood" scenario: a flood of keyless requests from client addresses never seen
// before, against the embedded service, while one keyed client keeps asking for a page. It
// measures what the flood costs: server RSS, database + WAL size, /healthz, and the keyed
// latency during the flood. See bench/README.md ("Address flood").
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor200 } from './lib/http.ts'
import { canPin, killAllChildren, pinSelf, runCommand, startChild, stopChild, type Core } from './lib/processes.ts'
import { readMemory } from './lib/rss.ts'
import { checkoutAt, CURRENT } from './lib/targets.ts'

const { values: options } = parseArgs({
  options: {
    first: { type: 'string', default: '200000' },
    second: { type: 'string', default: '600000' },
    'max-addresses': { type: 'string' },
    out: { type: 'string' },
    // Another checkout's service (built), e.g. an older revision for a before/after.
    root: { type: 'string' }
  }
})
const SERVICE = options.root === undefined ? CURRENT : checkoutAt(options.root)
const SCRIPT = fileURLToPath(new URL('wrk/address-flood.lua', import.meta.url))
const [serverCore, loadCore]: [Core, Core] = canPin() ? [0, 1] : [undefined, undefined]
pinSelf(loadCore)

const dir = mkdtempSync(join(tmpdir(), 'animal-store-flood-'))
const db = join(dir, 'flood.db')
const env = {
  PATH: process.env.PATH,
  DATABASE_URL: `sqlite:${db}`,
  LOG_LEVEL: 'warn',
  TRUST_PROXY: '1',
  ...(options['max-addresses'] === undefined ? {} : { RATE_LIMIT_MAX_ADDRESSES: options['max-addresses'] })
}
const cli = async (args: string[]) => {
  const run = await runCommand(process.execPath, [SERVICE.bin, ...args], { env, timeoutMs: 60_000, cwd: SERVICE.root })
  if (run.code !== 0) throw new Error(`animal-store ${args.join(' ')}: ${run.stderr}`)
  return run.stdout
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 100) / 100
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/** Keyed GET /v1/pets?limit=20, one at a time, until `stop` resolves; latencies in ms. */
async function keyedProbe(origin: string, key: string, stop: Promise<unknown>): Promise<number[]> {
  let stopped = false
  void stop.then(() => (stopped = true))
  const latencies: number[] = []
  while (!stopped) {
    const started = performance.now()
    const response = await fetch(`${origin}/v1/pets?limit=20`, { headers: { authorization: `Bearer ${key}` } })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`keyed request answered ${response.status}`)
    latencies.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return latencies
}

async function flood(origin: string, from: number, count: number) {
  const wrk = startChild('wrk', 'wrk', ['-t1', '-c50', '-d600s', '-T10s', '-s', SCRIPT, origin], {
    core: loadCore,
    env: { ...process.env, FLOOD_FROM: String(from), FLOOD_COUNT: String(count), FLOOD_DONE_FILE: join(dir, `done-${from}`) }
  })
  let exited = false
  void wrk.exited.then(() => (exited = true))
  while (!exited && !existsSync(join(dir, `done-${from}`))) await new Promise((resolve) => setTimeout(resolve, 50))
  wrk.process.kill('SIGINT')
  await wrk.exited
  const line = /FLOOD_RESULT (\{.*\})/.exec(wrk.output())?.[1]
  if (line === undefined) throw new Error(`wrk printed no result:\n${wrk.output()}`)
  return JSON.parse(line) as { requests: number; durationUs: number; errors: number; p50Us: number; p99Us: number }
}

try {
  await cli(['migrate'])
  const key = (
    JSON.parse(await cli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '1000000000', '--json'])) as {
      key: string
    }
  ).key
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const server = startChild('service', process.execPath, [...SERVICE.nodeFlags, SERVICE.bin, 'serve'], {
    core: serverCore,
    env: { ...env, PORT: String(port) },
    cwd: SERVICE.root
  })
  await waitFor200(origin, '/v1/pets?limit=20', key, { timeoutMs: 30_000, intervalMs: 20, exited: server.exited })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2500)) // a counter flush or two
  const snapshot = async () => {
    await settle()
    const health = await fetch(`${origin}/healthz`)
    return {
      rssMb: mb(readMemory(server.pid)!.rssKb * 1024),
      dbMb: mb(fileSize(db)),
      walMb: mb(fileSize(`${db}-wal`)),
      healthz: health.status
    }
  }
  const idle = await keyedProbe(origin, key, new Promise((resolve) => setTimeout(resolve, 3000)))
  const start = await snapshot()
  const phases = []
  let from = 0
  for (const count of [Number(options.first), Number(options.second)]) {
    const run = flood(origin, from, count)
    const keyed = await keyedProbe(origin, key, run)
    const load = await run
    const after = await snapshot()
    phases.push({
      addresses: count,
      rps: Math.round(load.requests / (load.durationUs / 1e6)),
      floodP99Ms: load.p99Us / 1000,
      keyed: { n: keyed.length, p50Ms: percentile(keyed, 50), p99Ms: percentile(keyed, 99) },
      after
    })
    from += count
  }
  await stopChild(server)
  const [first, second] = phases as [(typeof phases)[0], (typeof phases)[0]]
  const result = {
    maxAddresses: options['max-addresses'] ?? 'default (100000)',
    idleKeyed: { p50Ms: percentile(idle, 50), p99Ms: percentile(idle, 99) },
    start,
    phases,
    verdicts: {
      rssGrowthSecondMb: Math.round((second.after.rssMb - first.after.rssMb) * 10) / 10,
      dbWalGrowthSecondMb: Math.round((second.after.dbMb + second.after.walMb - first.after.dbMb - first.after.walMb) * 10) / 10,
      keyedP99OverMedian: phases.map((p) => Math.round((p.keyed.p99Ms / p.keyed.p50Ms) * 10) / 10)
    }
  }
  const text = JSON.stringify(result, null, 2)
  process.stdout.write(`${text}\n`)
  if (options.out !== undefined) writeFileSync(options.out, `${text}\n`)
} finally {
  killAllChildren()
  rmSync(dir, { recursive: true, force: true })
}
