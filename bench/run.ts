// `npm run bench`: the ceiling, the naive baseline and the service side by side, in one session
// (with --baseline-rev, the service at another revision too). Servers run on core 0 and the load
// generator (wrk) with this harness on core 1; targets are interleaved within every round, so each
// ratio compares measurements taken seconds apart.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { collectPages, freePort, waitFor200 } from './lib/http.ts'
import { canPin, canRunRealtime, killAllChildren, pinSelf, startChild, stopChild, type Child, type Core } from './lib/processes.ts'
import { renderMarkdown, renderText, type Report } from './lib/report.ts'
import { writeResultFiles } from './lib/result-files.ts'
import { runCpuMode } from './lib/cpu-mode.ts'
import { parseTracingSettings, type TracingSetting } from './lib/cpu-tracing.ts'
import { compareRevisions, compareScales, summarize, verdicts, type Measurement, type Startup, type TargetInfo } from './lib/results.ts'
import { prepareWorktree, resolveRevision, revisionName, type Revision } from './lib/revision.ts'
import { readMemory, RssSampler } from './lib/rss.ts'
import { sanityCheck } from './lib/sanity.ts'
import { spread } from './lib/stats.ts'
import {
  baselineTargets,
  checkoutAt,
  CURRENT,
  SERVICE_BIN_PATH,
  TARGETS,
  TargetUnavailable,
  type SetupContext,
  type Store,
  type Target,
  type TargetId
} from './lib/targets.ts'
import { LIST_PATH, PAGES, requestPlan, WORKLOADS, type Workload } from './lib/workloads.ts'
import { runWrk, wrkVersion } from './lib/wrk.ts'

const HELP = `Usage: npm run bench -- [options]

Runs the ceiling (raw node:http), the naive baseline (Express + better-sqlite3) and the service
(embedded SQLite; PostgreSQL + Redis when reachable) under the same workloads, interleaved over
several rounds, on stores of 1,000 and 1,000,000 pets; prints the side-by-side table and the
targets as PASS/FAIL lines, and writes JSON + Markdown to bench/results/.

Options:
  --rounds N          rounds per store size (default 5)
  --duration S        seconds of load per target, workload and round (default 6)
  --warmup S          seconds of unrecorded load per target and workload before round 1 (default 2)
  --connections N     keep-alive connections of the load generator (default 50)
  --scales A,B        store sizes in pets (default 1000,1000000)
  --targets LIST      of ${TARGETS.map((t) => t.id).join(',')} (default all; the ceiling always runs)
  --workloads LIST    of ${WORKLOADS.map((w) => w.id).join(',')} (default all)
  --startup-runs N    start-up measurements per service target and store size (default: rounds)
  --baseline-rev REV  also run the service at git revision REV (commit, tag or branch), checked out
                      into a temporary worktree and built there, as service-sqlite@<commit> (and
                      service-pg@<commit> with service-pg), in the same rounds; adds a before/after
                      table (this checkout ÷ REV, per round)
  --quick             a smoke run: 1 round of 3 s, 1 s warm-up; results labelled "smoke run"
  --naive-sync MODE   SQLite synchronous of the naive baseline: FULL (fsync every commit, as the
                      service does) or NORMAL (default: better-sqlite3's own default under WAL)
  --profile           run the service with --cpu-prof; profiles go to bench/results/tmp/profiles/
  --quiet-log         run every service with LOG_LEVEL=warn (no request log), named so in every report;
                      by default each service runs with its defaults: a request line per request at
                      info, written to a file as a service manager takes it, the operator listener on
                      (a free ADMIN_PORT each), usage history counted
  --no-pin            do not pin server and load generator to separate cores
  --no-realtime       run wrk under the normal scheduler, not real-time FIFO priority (chrt -f 1)
  --pg-url URL        PostgreSQL (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/test)
  --redis-url URL     Redis (default $BENCH_REDIS_URL or redis://127.0.0.1:6379)
  --out DIR           where results are written (default bench/results)
  -h, --help          this text

CPU A/B (--cpu, with --baseline-rev REV, --log-cost or --tracing SETTINGS): the CPU time
the embedded service's server process spends per request (the sum of its threads' time on a CPU),
over a fixed number of requests per run, in many short rounds that alternate the sides on several
servers each. Per workload: µs/request of each, the median over rounds of the speed ratio (CPU per
request of the reference ÷ the side's; below 1 is slower, below 0.97 a LOSS) and its 95% bootstrap
interval. Beside it, from the same runs, the throughput A/B: requests per second at saturation
(wrk's clock) with its ratio and interval, and the server's busy fraction (its CPU time ÷ that
time). Writes cpu.{json,md} (--log-cost: cpu-log.*; --quick: cpu-smoke.*). With --cpu:
  --cpu               this mode
  --baseline-rev REV  this checkout against REV (HEAD on a clean checkout: the noise floor)
  --log-cost          instead: this checkout at its defaults against LOG_LEVEL=warn (what the
                      request log costs), in the same rounds
  --tracing SETTINGS  instead: this checkout with tracing off against tracing on, one side per
                      sampler setting, in the same rounds; SETTINGS is a comma list of
                      SAMPLER[:RATIO] (OTEL_TRACES_SAMPLER[:OTEL_TRACES_SAMPLER_ARG]), e.g.
                      always_off,traceidratio:0.1,always_on. Each traced side exports OTLP/HTTP
                      protobuf to a receiver the harness runs; the run fails if an always_on side
                      exported nothing or an always_off side exported anything. Also prints each
                      setting against its target (nothing sampled ≥ 0.95×, up to a tenth ≥ 0.90×,
                      more ≥ 0.70× of tracing off). With --baseline-rev and one setting: both
                      revisions traced alike, each exporting to a receiver of its own; writes
                      cpu-traced.{json,md}
  --rounds N          rounds (default 64; --quick 6)
  --servers N         servers per build, used in turn (default 8; --quick 2)
  --run-ms MS         CPU milliseconds one run is sized to, by a probe (default 150; --quick 50)
  --warmup S          CPU seconds of unmeasured load per server and workload (default 2; --quick 1)
  --scales N          one store size in pets (default 10000)
  --workloads LIST    (default list,get,create)
  --connections N, --no-pin, --no-realtime, --quick, --out DIR as above

Needs wrk (Debian/Ubuntu: sudo apt-get install -y wrk) and taskset (util-linux).
`

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const log = (line: string) => process.stderr.write(`${line}\n`)

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`)
  process.exit(2)
}

function positiveInt(flag: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) fail(`--${flag} must be a whole number of at least ${min} (got ${JSON.stringify(raw)})`)
  return Number(raw)
}

function list<T extends string>(flag: string, raw: string | undefined, known: readonly T[]): T[] {
  if (raw === undefined) return [...known]
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const unknown = items.filter((s) => !(known as readonly string[]).includes(s))
  if (unknown.length > 0 || items.length === 0)
    fail(`--${flag}: unknown ${unknown.join(', ') || '(empty)'}; expected some of ${known.join(', ')}`)
  return items as T[]
}

function parseOptions() {
  let parsed
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      options: {
        rounds: { type: 'string' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        scales: { type: 'string' },
        targets: { type: 'string' },
        workloads: { type: 'string' },
        'startup-runs': { type: 'string' },
        'baseline-rev': { type: 'string' },
        cpu: { type: 'boolean' },
        tracing: { type: 'string' },
        'log-cost': { type: 'boolean' },
        'quiet-log': { type: 'boolean' },
        servers: { type: 'string' },
        'run-ms': { type: 'string' },
        quick: { type: 'boolean' },
        profile: { type: 'boolean' },
        'naive-sync': { type: 'string' },
        'no-pin': { type: 'boolean' },
        'no-realtime': { type: 'boolean' },
        'pg-url': { type: 'string' },
        'redis-url': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }).values
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`)
  }
  if (parsed.help === true) {
    process.stdout.write(HELP)
    process.exit(0)
  }
  const quick = parsed.quick === true
  const cpu = parsed.cpu === true
  if (cpu) {
    const other = (['duration', 'startup-runs', 'profile', 'naive-sync', 'targets', 'pg-url', 'redis-url'] as const).find(
      (flag) => parsed[flag] !== undefined
    )
    if (other !== undefined) fail(`--${other} does not apply to --cpu (see --help)`)
    const logCost = parsed['log-cost'] === true
    if (parsed['baseline-rev'] === undefined && parsed.tracing === undefined && !logCost)
      fail(
        '--cpu compares this checkout with another revision (--baseline-rev REV; HEAD on a clean checkout: the noise floor), ' +
          'its defaults with LOG_LEVEL=warn (--log-cost), or tracing off with tracing on (--tracing SETTINGS): give one of them, ' +
          'or --baseline-rev and --tracing with one setting (both revisions traced)'
      )
    if (logCost && (parsed['baseline-rev'] !== undefined || parsed.tracing !== undefined || parsed['quiet-log'] === true))
      fail('--log-cost compares this checkout with itself at two log levels: drop --baseline-rev, --tracing and --quiet-log')
    const otel = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'))
    if (parsed.tracing !== undefined && otel.length > 0)
      fail(`--tracing sets the OTEL_* variables of each side itself: unset ${otel.join(', ')}`)
  } else {
    const cpuOnly = (['servers', 'run-ms', 'tracing', 'log-cost'] as const).find((flag) => parsed[flag] !== undefined)
    if (cpuOnly !== undefined) fail(`--${cpuOnly} applies to --cpu only (see --help)`)
  }
  const rounds = positiveInt('rounds', parsed.rounds, cpu ? (quick ? 6 : 64) : quick ? 1 : 5)
  const scales =
    parsed.scales === undefined
      ? cpu
        ? [10_000]
        : [1000, 1_000_000]
      : parsed.scales.split(',').map((s) => positiveInt('scales', s.trim(), 0, PAGES * 20))
  if (cpu && scales.length !== 1) fail('--cpu measures one store size: give --scales N')
  const naiveSyncText = parsed['naive-sync']?.toUpperCase()
  if (naiveSyncText !== undefined && naiveSyncText !== 'FULL' && naiveSyncText !== 'NORMAL')
    fail(`--naive-sync must be FULL or NORMAL (got ${JSON.stringify(parsed['naive-sync'])})`)
  const naiveSync: 'FULL' | 'NORMAL' | undefined = naiveSyncText
  const targets = list(
    'targets',
    parsed.targets,
    TARGETS.map((t) => t.id)
  )
  if (!targets.includes('ceiling')) targets.unshift('ceiling')
  let baseline: Revision | undefined
  if (parsed['baseline-rev'] !== undefined) {
    try {
      baseline = resolveRevision(ROOT, parsed['baseline-rev'])
    } catch (error) {
      fail(`--baseline-rev: ${(error as Error).message}`)
    }
    if (!targets.some((t) => TARGETS.find((x) => x.id === t)?.role === 'service'))
      fail('--baseline-rev compares the service with itself: --targets must include service-sqlite or service-pg')
  }
  let tracing: TracingSetting[] | undefined
  if (parsed.tracing !== undefined) {
    try {
      tracing = parseTracingSettings(parsed.tracing)
    } catch (error) {
      fail(`--tracing: ${(error as Error).message}`)
    }
    if (baseline !== undefined && tracing.length !== 1) fail('--tracing with --baseline-rev traces both revisions alike: give one setting')
  }
  const cpuMode = cpu
    ? {
        comparison:
          parsed['log-cost'] === true
            ? { kind: 'log' as const }
            : baseline !== undefined
              ? { kind: 'revision' as const, baseline, traced: tracing?.[0] }
              : { kind: 'tracing' as const, settings: tracing! },
        servers: positiveInt('servers', parsed.servers, quick ? 2 : 8),
        runMs: positiveInt('run-ms', parsed['run-ms'], quick ? 50 : 150, 10),
        workloads: list(
          'workloads',
          parsed.workloads ?? 'list,get,create',
          WORKLOADS.map((w) => w.id)
        )
      }
    : undefined
  return {
    quick,
    rounds,
    cpuMode,
    durationS: positiveInt('duration', parsed.duration, quick ? 3 : 6),
    warmupS: positiveInt('warmup', parsed.warmup, quick ? 1 : 2, 0),
    connections: positiveInt('connections', parsed.connections, 50),
    scales: [...new Set(scales)].sort((a, b) => a - b),
    targets,
    workloads: list(
      'workloads',
      parsed.workloads,
      WORKLOADS.map((w) => w.id)
    ),
    startupRuns: positiveInt('startup-runs', parsed['startup-runs'], rounds),
    baseline,
    profile: parsed.profile === true,
    naiveSynchronous: naiveSync,
    quietLog: parsed['quiet-log'] === true,
    pin: parsed['no-pin'] !== true,
    realtime: parsed['no-realtime'] !== true,
    pgUrl: parsed['pg-url'] ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: parsed['redis-url'] ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    outDir: parsed.out ?? join(BENCH_DIR, 'results')
  }
}

// ---- clean-up on any exit ------------------------------------------------------------------

const cleanups: Array<() => Promise<void>> = []
const servers = new Set<Child>()
let cleaning: Promise<void> | undefined

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...servers].map((s) => stopChild(s, 3000)))
    for (const cleanup of cleanups.reverse()) {
      await Promise.race([
        cleanup().catch((error: unknown) => log(`clean-up failed: ${(error as Error).message}`)),
        new Promise((resolve) => setTimeout(resolve, 15_000))
      ])
    }
  })()
  return cleaning
}

function onSignal(signal: NodeJS.Signals): void {
  if (cleaning !== undefined) {
    killAllChildren()
    process.exit(130)
  }
  log(`\nbench: ${signal}: stopping servers and cleaning up (again to kill at once)`)
  void cleanUp().finally(() => process.exit(130))
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)
process.on('exit', killAllChildren)

// ---- machine -------------------------------------------------------------------------------

function machine(wrk: string) {
  const cpuinfo = (() => {
    try {
      return readFileSync('/proc/cpuinfo', 'utf8')
    } catch {
      return ''
    }
  })()
  return {
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown',
    nproc: availableParallelism(),
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    loadGenerator: wrk,
    loadAverageAtStart: loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')
  }
}

// ---- one target's server -------------------------------------------------------------------

interface Running {
  pets: number
  target: Target
  store: Store
  child: Child
  origin: string
  pagesFile: string
}

/**
 * Node's compile-cache switches and the OpenTelemetry variables, passed on when set
 * (`NODE_DISABLE_COMPILE_CACHE=1 npm run bench`; `OTEL_EXPORTER_OTLP_ENDPOINT=... npm run bench` measures tracing on).
 */
function compileCacheEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of Object.keys(process.env)) {
    if (name === 'NODE_COMPILE_CACHE' || name === 'NODE_DISABLE_COMPILE_CACHE' || name.startsWith('OTEL_')) env[name] = process.env[name]
  }
  return env
}

/** What every service runs with beyond its store: set once by main (a free ADMIN_PORT is added per server). */
const serviceDefaults = { quietLog: false, logDir: '' }

/** The configuration users run unless told: the defaults, or LOG_LEVEL=warn with --quiet-log. */
function serviceConfiguration(quietLog: boolean): string {
  return quietLog
    ? 'Service configuration: QUIETER than the defaults (--quiet-log): LOG_LEVEL=warn, no request log; operator listener on, usage history counted'
    : 'Service configuration: the defaults (no LOG_LEVEL: a request line per request at info, written to a file; operator listener on a port of its own; usage history counted)'
}

async function startServer(target: Target, store: Store, core: Core, nodeFlags: string[]): Promise<{ child: Child; origin: string }> {
  const port = await freePort()
  const service = target.role === 'service'
  // The service as `npm start` runs it: its own operator port (8081 is one per machine), its output to a file.
  const defaults: NodeJS.ProcessEnv = service
    ? { ADMIN_PORT: String(await freePort()), ...(serviceDefaults.quietLog ? { LOG_LEVEL: 'warn' } : {}) }
    : {}
  const env = { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), ...compileCacheEnv(), ...defaults, ...store.env }
  const logFile = service ? join(serviceDefaults.logDir, `${target.id}-${port}.log`) : undefined
  const child = startChild(target.id, process.execPath, [...nodeFlags, ...target.entry], { core, env, cwd: target.cwd, logFile })
  servers.add(child)
  void child.exited.then(() => servers.delete(child))
  return { child, origin: `http://127.0.0.1:${port}` }
}

async function stopServer(child: Child): Promise<void> {
  const code = await stopChild(child, 15_000)
  servers.delete(child)
  if (code !== 0 && code !== 'SIGTERM') log(`  (${child.name} exited with ${code}: ${child.output().trim().slice(-300)})`)
}

/** Spawn to the first authenticated `GET /v1/pets` answered 200, in ms. */
async function measureStartup(target: Target, store: Store, core: Core): Promise<number> {
  const started = performance.now()
  const { child, origin } = await startServer(target, store, core, [])
  try {
    const servedAt = await waitFor200(origin, LIST_PATH, store.key, { timeoutMs: 60_000, intervalMs: 5, exited: child.exited })
    return servedAt - started
  } catch (error) {
    throw new Error(`${target.id} did not start: ${(error as Error).message}\n${child.output().trim().slice(-1000)}`, { cause: error })
  } finally {
    await stopServer(child)
  }
}

// ---- the run -------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseOptions()
  const wrk = wrkVersion()
  if (wrk === undefined) {
    fail('wrk is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y wrk; macOS: brew install wrk) and run again.')
  }
  const info = machine(wrk)
  const pin = options.pin && info.nproc >= 2 && canPin()
  if (options.pin && !pin)
    log(
      `bench: WARNING: cannot pin (${info.nproc < 2 ? `only ${info.nproc} CPU` : 'taskset missing'}): ` +
        'server and load generator share the CPUs, ratios are less meaningful'
    )
  // wrk at real-time priority: no other process on its core (a database's timers, the
  // machine's own agents) can hold it off the CPU while requests wait, which every target's
  // p99 would otherwise count as the server's latency. Kernel throttling keeps 5% of the core
  // for everything else.
  const realtime = options.realtime && canRunRealtime()
  if (options.realtime && !realtime)
    log(
      'bench: WARNING: cannot run wrk at real-time priority (chrt -f 1 needs root or CAP_SYS_NICE): ' +
        'p99 also counts the time other processes held wrk off its core'
    )
  const serverCore: Core = pin ? 0 : undefined
  const loadCore: Core = pin ? 1 : undefined
  pinSelf(loadCore)

  const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`
  const defer = (cleanup: () => Promise<void>) => {
    cleanups.push(cleanup)
  }
  serviceDefaults.quietLog = options.quietLog
  serviceDefaults.logDir = mkdtempSync(join(tmpdir(), 'animal-store-bench-logs-'))
  defer(async () => rmSync(serviceDefaults.logDir, { recursive: true, force: true }))
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`
  if (options.cpuMode !== undefined) {
    const layout = pin ? 'every server pinned to core 0 (taskset -c 0), wrk and the harness to core 1' : 'NOT pinned'
    await runCpuMode(
      {
        ...options.cpuMode,
        rounds: options.rounds,
        warmupS: options.warmupS,
        pets: options.scales[0]!,
        quick: options.quick,
        outDir: options.outDir
      },
      {
        root: ROOT,
        runId,
        load: { connections: options.connections, core: loadCore, realtime },
        preamble: [
          `Machine: ${info.cpuModel}, ${info.nproc} CPUs, ${info.memoryGb} GiB, Linux ${info.kernel}, Node ${info.node}, ${wrk}; ` +
            `load average at start ${info.loadAverageAtStart}`,
          `Layout: ${layout}; wrk ${realtime ? 'at real-time priority (chrt -f 1)' : 'at normal priority'}, 1 thread, ${options.connections} connections`,
          serviceConfiguration(options.quietLog)
        ],
        defer,
        startServer: (target, store) => startServer(target, store, serverCore, []),
        stopServer,
        log
      },
      command
    )
    return
  }
  const startedAt = new Date()
  const workloads = WORKLOADS.filter((w) => options.workloads.includes(w.id))
  const selected = TARGETS.filter((t) => options.targets.includes(t.id))
  const notes: string[] = []
  if (options.baseline !== undefined) {
    // The service at the baseline revision: its own worktree, install and build; each of its
    // targets is listed right after the target of this checkout it is compared with.
    const { baseline } = options
    const checkout = checkoutAt(await prepareWorktree(ROOT, baseline, { needs: SERVICE_BIN_PATH, defer, log }))
    for (const target of baselineTargets(checkout, baseline.short, options.targets))
      selected.splice(selected.findIndex((t) => t.id === target.baselineOf) + 1, 0, target)
    const flags = (f: string[]) => (f.length === 0 ? 'none' : f.join(' '))
    notes.push(
      `The targets @${baseline.short} are the service at ${revisionName(baseline)}, commit ${baseline.commit}: ` +
        'a temporary worktree, `npm ci --ignore-scripts` and `npm run build` there, its own CLI for migrate and keys, ' +
        `seeded and run as this checkout's (Node flags of its CLI's shebang: ${flags(checkout.nodeFlags)}).`
    )
    if (flags(checkout.nodeFlags) !== flags(CURRENT.nodeFlags))
      log(
        `bench: NOTE: the CLI's Node flags differ: ${flags(CURRENT.nodeFlags)} here, ` +
          `${flags(checkout.nodeFlags)} at ${baseline.short}; each runs with its own`
      )
  }
  const infos = new Map<TargetId, TargetInfo>(
    selected.map((t) => [
      t.id,
      {
        id: t.id,
        role: t.role,
        label: t.label,
        ...(t.baselineOf === undefined ? {} : { baselineOf: t.baselineOf, revision: options.baseline }),
        hwmMb: {},
        seedMs: {}
      }
    ])
  )
  const baseContext = { runId, pgUrl: options.pgUrl, redisUrl: options.redisUrl, naiveSynchronous: options.naiveSynchronous, defer }
  for (const target of selected) {
    const reason = await target.unavailable({ ...baseContext, dir: '' })
    if (reason !== undefined) {
      infos.get(target.id)!.skipped = reason
      log(`bench: SKIPPING ${target.id}: ${reason}`)
    }
  }
  const profileDir = join(options.outDir, 'tmp', 'profiles')
  if (options.profile) mkdirSync(profileDir, { recursive: true })

  log(
    `bench: ${options.quick ? 'SMOKE RUN (--quick), not a measurement: ' : ''}` +
      `${options.rounds} round(s) × ${options.durationS} s per target and workload, ${options.connections} connections, ` +
      `stores of ${options.scales.map((n) => n.toLocaleString('en-US')).join(' and ')} pets; ` +
      `servers on ${pin ? 'core 0' : 'any core'}, wrk on ${pin ? 'core 1' : 'any core'}`
  )
  log(`bench: ${info.cpuModel}, ${info.nproc} CPUs, ${info.node}, ${wrk}, load average ${info.loadAverageAtStart}`)

  const measurements: Measurement[] = []
  const startups: Startup[] = []

  // Every store size gets its stores and servers up front, so each round measures every size:
  // the cost of a larger store is then a comparison of runs seconds apart, not of halves of the run.
  const running: Running[] = []
  for (const pets of options.scales) {
    const scale = pets.toLocaleString('en-US')
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-bench-'))
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    const context: SetupContext = { ...baseContext, dir }

    // Stores, seeded through the storage layer.
    const stores = new Map<TargetId, Store>()
    for (const target of selected) {
      const info = infos.get(target.id)!
      if (info.skipped !== undefined) continue
      try {
        const store = await target.setup(context, pets)
        cleanups.push(() => store.dispose())
        stores.set(target.id, store)
        info.seedMs[pets] = store.seedMs
        if (target.id !== 'ceiling') log(`[${scale}] ${target.id}: seeded ${scale} pets in ${(store.seedMs / 1000).toFixed(2)} s`)
      } catch (error) {
        // The PostgreSQL backend is optional here; anything else failing to set up is a harness error.
        if (error instanceof TargetUnavailable || target.optional) {
          info.skipped = (error as Error).message.split('\n')[0]
          log(`bench: SKIPPING ${target.id}: ${info.skipped}`)
          continue
        }
        throw error
      }
    }
    const active = selected.filter((t) => stores.has(t.id))

    // Start-up to a first served request, before the long-running servers start.
    for (const target of active.filter((t) => t.role === 'service')) {
      const runs: number[] = []
      for (let i = 0; i < options.startupRuns; i++) runs.push(await measureStartup(target, stores.get(target.id)!, serverCore))
      startups.push({ target: target.id, pets, ms: spread(runs)!, runs })
      log(`[${scale}] ${target.id}: start-up to first served request ${runs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`)
    }

    // Servers, checked. An idle one costs the others nothing measurable: no timer of theirs runs more than once a second.
    for (const target of active) {
      const store = stores.get(target.id)!
      const flags =
        options.profile && target.role === 'service'
          ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${target.id}-${pets}-${runId}.cpuprofile`]
          : []
      const { child, origin } = await startServer(target, store, serverCore, flags)
      try {
        await waitFor200(origin, LIST_PATH, store.key, { timeoutMs: 60_000, intervalMs: 20, exited: child.exited })
      } catch (error) {
        throw new Error(`${target.id} did not start: ${(error as Error).message}\n${child.output().trim().slice(-1000)}`, { cause: error })
      }
      const { paths, followed } = await collectPages(origin, LIST_PATH, store.key, PAGES)
      if (target.role !== 'ceiling' && followed < PAGES - 1)
        log(`[${scale}] ${target.id}: only ${followed + 1} pages exist; page50 cycles through them`)
      const pagesFile = join(dir, `${target.id.replace('@', '-')}.pages`)
      writeFileSync(pagesFile, `${paths.join('\n')}\n`)
      const entry = { pets, target, store, child, origin, pagesFile }
      const { rateLimitHeaders } = await sanityCheck(origin, target, store, paths)
      if (target.role === 'service') {
        const info = infos.get(target.id)!
        info.rateLimitHeaders = (info.rateLimitHeaders ?? true) && rateLimitHeaders
        if (!rateLimitHeaders) log(`[${scale}] ${target.id}: WARNING: no X-RateLimit-* headers: the rate limiter does not seem to run`)
      }
      running.push(entry)
    }
  }

  const load = (r: Running, workload: Workload, seconds: number) =>
    runWrk(r.origin, requestPlan(workload.id, { maxId: r.store.maxId, pagesFile: r.pagesFile }), {
      key: r.store.key,
      seconds,
      connections: options.connections,
      core: loadCore,
      realtime
    })

  // A server that dies under load is reported with its last output and dropped from the run
  // (with its target at every store size, so no half-measured target is judged); the other
  // targets carry on. wrk failing against a live server is a harness error.
  const alive = (r: Running) => r.child.process.exitCode === null && r.child.process.signalCode === null
  const survived = async <T>(r: Running, what: string, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      const result = await work()
      if (alive(r)) return result
    } catch (error) {
      if (alive(r)) throw error
    }
    const code = await r.child.exited
    const lastOutput = r.child.output().trim().split('\n').slice(-5).join(' | ').slice(-600) || '(none)'
    const reason = `its server exited (${code}) during ${what} with ${r.pets.toLocaleString('en-US')} pets; last output: ${lastOutput}`
    infos.get(r.target.id)!.skipped = reason
    log(`[${r.pets.toLocaleString('en-US')}] ${r.target.id}: DROPPED: ${reason}`)
    for (const other of running.filter((o) => o.target.id === r.target.id)) {
      running.splice(running.indexOf(other), 1)
      if (other !== r) await stopServer(other.child)
    }
    return undefined
  }

  if (options.warmupS > 0) {
    log(`warming up: ${options.warmupS} s per store size, target and workload`)
    for (const workload of workloads) {
      for (const r of [...running]) {
        if (!running.includes(r)) continue
        await survived(r, `the ${workload.id} warm-up`, () => load(r, workload, options.warmupS))
        if (workload.id === 'create' && running.includes(r)) await r.store.trim()
      }
    }
  }

  const idWidth = Math.max(14, ...selected.map((t) => t.id.length))
  for (let round = 1; round <= options.rounds; round++) {
    for (const workload of workloads) {
      // Store sizes alternate which goes first, and a different target goes first in every round.
      const sizes = round % 2 === 1 ? options.scales : [...options.scales].reverse()
      for (const pets of sizes) {
        const atSize = running.filter((r) => r.pets === pets)
        const order = atSize.map((_, i) => atSize[(i + round - 1) % atSize.length]!)
        for (const r of order) {
          if (!running.includes(r)) continue
          const sampler = new RssSampler(r.child.pid)
          let rssPeakMb = 0
          const result = await survived(r, `${workload.id} round ${round}`, () => load(r, workload, options.durationS)).finally(() => {
            rssPeakMb = sampler.stop()
          })
          if (result === undefined) continue
          if (workload.id === 'create') await r.store.trim()
          measurements.push({ pets, round, workload: workload.id, target: r.target.id, rssPeakMb, ...pick(result) })
          const rps = Math.round(result.rps).toLocaleString('en-US').padStart(7)
          const errors = result.errors > 0 ? `  ERRORS ${result.errors} (${result.non2xx} non-2xx)` : ''
          log(
            `[${pets.toLocaleString('en-US')} r${round}] ${workload.id.padEnd(11)} ${r.target.id.padEnd(idWidth)} ${rps} req/s  ` +
              `p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  RSS ${rssPeakMb.toFixed(0)} MB${errors}`
          )
        }
      }
    }
  }

  for (const r of running) {
    const memory = readMemory(r.child.pid)
    if (memory !== undefined) infos.get(r.target.id)!.hwmMb[r.pets] = memory.hwmKb / 1024
    await stopServer(r.child)
  }

  // ---- results ----
  const summaries = summarize(measurements)
  const scales = compareScales(measurements, summaries)
  const targets = [...infos.values()]
  const revisions = compareRevisions(measurements, summaries, targets)
  const checks = verdicts({ summaries, scales, targets, startups, connections: options.connections })
  const kind = options.quick ? 'smoke' : 'full'

  const naiveSynchronous = options.naiveSynchronous ?? 'NORMAL (better-sqlite3 default under WAL: no fsync per commit)'
  notes.unshift(
    'Ratios are per round (the target against the ceiling or the naive baseline measured seconds apart in the same round), ' +
      'then the median over rounds. ×ceil for p50/p99/RSS above 1 means slower or bigger than the ceiling. ' +
      'Every store size is measured in every round, so the cost of a larger store is also a per-round ratio.',
    "The write workload's pets are deleted after each run of it, so every run sees the seeded store. " +
      'RSS is the highest VmRSS sampled every 100 ms during the run; ' +
      "the PASS line for RSS also counts VmHWM over the server's whole life.",
    `wrk measures latency from the moment it sends a request (closed loop, ${options.connections} connections): ` +
      'a stalled server shows as fewer requests more than as a higher p99.',
    `The naive baseline commits with synchronous=${naiveSynchronous}; ` +
      "the service's embedded store commits with synchronous=FULL (an fsync per commit).",
    'PostgreSQL and Redis, when used, are not pinned: they share both cores with the server and the load generator.'
  )
  if (targets.some((t) => t.rateLimitHeaders === false))
    notes.push('WARNING: a service target answered without X-RateLimit-* headers: its rate limiter did not run.')
  if (measurements.some((m) => m.errors > 0))
    notes.push('(!) marks a target with socket errors, timeouts or non-2xx answers in some run: its figures are not trustworthy.')
  const report: Report = {
    title: options.quick ? 'Animal Store benchmark: SMOKE RUN (--quick), not a measurement' : 'Animal Store benchmark',
    preamble: [
      `Command: \`${command}\` (${startedAt.toISOString()})`,
      `Machine: ${info.cpuModel}, ${info.nproc} CPUs, ${info.memoryGb} GiB, Linux ${info.kernel}, Node ${info.node}, ${wrk}; ` +
        `load average at start ${info.loadAverageAtStart}, at end ${loadavg()
          .map((n) => n.toFixed(2))
          .join(' ')}`,
      `Layout: ${pin ? 'every server pinned to core 0 (taskset -c 0), wrk and the harness to core 1' : 'NOT pinned'}` +
        `${realtime ? ', wrk at real-time priority (chrt -f 1)' : ', wrk at normal priority'}; ` +
        `${options.rounds} round(s) × ${options.durationS} s per target and workload after ${options.warmupS} s warm-up; ` +
        `${options.connections} connections, 1 wrk thread`,
      serviceConfiguration(options.quietLog)
    ],
    targets,
    summaries,
    scales,
    revisions,
    startups,
    verdicts: checks,
    notes
  }
  const textReport = renderText(report)
  process.stdout.write(`\n${textReport}`)
  const body = {
    machine: info,
    settings: { ...options, pinned: pin, outDir: undefined },
    workloads,
    targets,
    measurements,
    summaries,
    scales,
    beforeAfter: revisions,
    startups,
    verdicts: checks,
    notes
  }
  const { jsonPath, mdPath } = writeResultFiles(
    options.outDir,
    { kind, title: report.title, command, startedAt },
    body,
    renderMarkdown(report)
  )
  const profiles = options.profile ? `; CPU profiles in ${relative(process.cwd(), profileDir)}` : ''
  log(`\nbench: wrote ${relative(process.cwd(), jsonPath)} and ${relative(process.cwd(), mdPath)}${profiles}`)
}

function pick(result: Awaited<ReturnType<typeof runWrk>>) {
  const { rps, p50Ms, p90Ms, p99Ms, maxMs, requests, errors, non2xx } = result
  return { rps, p50Ms, p90Ms, p99Ms, maxMs, requests, errors, non2xx }
}

main().then(
  () => cleanUp().then(() => process.exit(0)),
  (error: unknown) => {
    // After Ctrl-C whatever was running fails as its processes stop: not worth a stack trace.
    if (cleaning === undefined) log(`bench: ${(error as Error).stack ?? String(error)}`)
    void cleanUp().finally(() => process.exit(1))
  }
)
