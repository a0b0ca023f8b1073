// `npm run bench -- --cpu`: the embedded service by the CPU time its server process spends per
// request (see cpu-ab.ts), over many short alternating rounds with several servers per side.
// `--baseline-rev REV`: this checkout against the service at REV. `--tracing SETTINGS`: this
// checkout with tracing off against tracing on under each sampler setting, in the same rounds.
// Servers run on core 0, wrk on core 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOSS_BELOW } from './ab-stats.ts'
import { alternate, measureRun, probe, summarizeAb, usPerRequest, type AbServer, type AbSide, type LoadSettings } from './cpu-ab.ts'
import { renderCpuMarkdown, renderCpuText, type CpuReport } from './cpu-report.ts'
import {
  OFF_SIDE,
  sideOf,
  sinkLine,
  sinkProblems,
  targetLines,
  tracingEnv,
  tracingTarget,
  type TracingOutcome,
  type TracingSetting
} from './cpu-tracing.ts'
import { collectPages, waitFor200 } from './http.ts'
import { startOtlpSink, type OtlpSink } from './otlp-sink.ts'
import type { Child } from './processes.ts'
import { writeResultFiles } from './result-files.ts'
import { prepareWorktree, revisionName, type Revision } from './revision.ts'
import { sanityCheck } from './sanity.ts'
import { baselineTargets, checkoutAt, SERVICE_BIN_PATH, TARGETS, type Store, type Target } from './targets.ts'
import { LIST_PATH, PAGES, requestPlan, type WorkloadId } from './workloads.ts'

/** What is compared: this checkout against another revision, or tracing off against tracing on. */
type CpuComparison =
  { kind: 'revision'; baseline: Revision; traced?: TracingSetting } | { kind: 'tracing'; settings: TracingSetting[] } | { kind: 'log' }

export interface CpuModeOptions {
  comparison: CpuComparison
  rounds: number
  /** Servers per build, used in turn. */
  servers: number
  /** CPU time one measured run is sized to, ms (from a probe of the baseline's first server). */
  runMs: number
  /** CPU time of each server's warm-up per workload, s. */
  warmupS: number
  pets: number
  workloads: WorkloadId[]
  quick: boolean
  outDir: string
}

/** What the harness (run.ts) lends this mode: its servers, clean-up and log. */
export interface Harness {
  root: string
  runId: string
  load: LoadSettings
  preamble: string[]
  defer: (cleanup: () => Promise<void>) => void
  startServer: (target: Target, store: Store) => Promise<{ child: Child; origin: string }>
  stopServer: (child: Child) => Promise<void>
  log: (line: string) => void
}

/** A fresh store and a checked, running server of `target`. */
async function startService(target: Target, pets: number, harness: Harness, env: NodeJS.ProcessEnv): Promise<AbServer & { child: Child }> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-cpu-'))
  harness.defer(async () => rmSync(dir, { recursive: true, force: true }))
  const context = { dir, runId: harness.runId, pgUrl: '', redisUrl: '', naiveSynchronous: undefined, defer: harness.defer }
  const store = await target.setup(context, pets)
  const { child, origin } = await harness.startServer(target, { ...store, env: { ...store.env, ...env } })
  await waitFor200(origin, LIST_PATH, store.key, { timeoutMs: 60_000, intervalMs: 20, exited: child.exited }).catch((error: unknown) => {
    throw new Error(`${target.id} did not start: ${(error as Error).message}\n${child.output().trim().slice(-1000)}`, { cause: error })
  })
  const { paths } = await collectPages(origin, LIST_PATH, store.key, PAGES)
  const pagesFile = join(dir, 'pages')
  writeFileSync(pagesFile, `${paths.join('\n')}\n`)
  const { rateLimitHeaders } = await sanityCheck(origin, target, store, paths)
  if (!rateLimitHeaders) throw new Error(`${target.id} answered without X-RateLimit-* headers: its rate limiter does not run`)
  return {
    child,
    pid: child.pid,
    origin,
    key: store.key,
    plan: (workload) => requestPlan(workload as WorkloadId, { maxId: store.maxId, pagesFile }),
    afterRun: async (workload) => (workload === 'create' ? store.trim() : undefined)
  }
}

/** Two significant figures, so the counts read as chosen rather than measured. */
const roundCount = (n: number) => {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1)
  return Math.max(100, Math.round(n / unit) * unit)
}

/** One side of the comparison: the target its servers run, with what their environment adds. */
interface Build {
  side: AbSide
  target: Target
  env: NodeJS.ProcessEnv
  /** How the report names it: `now`, `before`, `off`, `always_on`. */
  label: string
}

/** The sides, the reference first, and the lines that say what they are. */
async function buildsOf(comparison: CpuComparison, harness: Harness) {
  const now = TARGETS.find((t) => t.id === 'service-sqlite')!
  const build = (name: string, target: Target, label: string, env: NodeJS.ProcessEnv = {}): Build => ({
    side: { name, servers: [] },
    target,
    env,
    label
  })
  if (comparison.kind === 'revision') {
    const { baseline } = comparison
    const { root, defer, log } = harness
    const checkout = checkoutAt(await prepareWorktree(root, baseline, { needs: SERVICE_BIN_PATH, defer, log }))
    const before = baselineTargets(checkout, baseline.short, [now.id])[0]!
    // With a tracing setting, both builds run traced, each exporting to a receiver of its own.
    const traced = comparison.traced
    const envOf = async () => {
      if (traced === undefined) return {}
      const receiver = await startOtlpSink()
      harness.defer(() => receiver.close())
      return tracingEnv(traced, receiver.endpoint)
    }
    return {
      builds: [build(before.id, before, 'before', await envOf()), build(now.id, now, 'now', await envOf())],
      describe:
        `Builds: now = this checkout (${now.id}); before = ${revisionName(baseline)}, commit ${baseline.commit} (${before.id})` +
        (traced === undefined ? '' : `; both with tracing on, ${traced.label}, each exporting OTLP/HTTP protobuf to a receiver of its own`),
      heading: `this checkout ("now", ${now.id}) against ${before.id} ("before"); speed now ÷ before = CPU per request before ÷ now`,
      outcomes: []
    }
  }
  if (comparison.kind === 'log') {
    return {
      builds: [build('log-warn', now, 'warn', { LOG_LEVEL: 'warn' }), build('log-default', now, 'default')],
      describe: `Sides: this checkout (${now.id}) at its defaults (a request line per request at info, to a file) and with LOG_LEVEL=warn (no request line)`,
      heading: 'this checkout at its defaults against LOG_LEVEL=warn; speed default ÷ warn = CPU per request warn ÷ default',
      outcomes: []
    }
  }
  const outcomes: Array<TracingOutcome & { receiver: OtlpSink }> = []
  const traced: Build[] = []
  for (const setting of comparison.settings) {
    const receiver = await startOtlpSink()
    harness.defer(() => receiver.close())
    const side = sideOf(setting)
    outcomes.push({ setting, side, target: tracingTarget(setting), sink: receiver.counts(), receiver })
    traced.push(build(side, now, setting.label, tracingEnv(setting, receiver.endpoint)))
  }
  return {
    builds: [build(OFF_SIDE, now, 'off'), ...traced],
    describe:
      `Sides: this checkout (${now.id}) with tracing off (no OTEL_*), and with tracing on under ` +
      `${comparison.settings.map((s) => s.label).join(', ')}: OTLP/HTTP protobuf to a receiver of the harness's own that answers at once, ` +
      'one per setting (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; no traceparent sent)',
    heading: 'tracing on, each setting, against tracing off, this checkout; speed on ÷ off = CPU per request off ÷ on',
    outcomes
  }
}

export async function runCpuMode(options: CpuModeOptions, harness: Harness, command: string): Promise<void> {
  const { workloads, load, log } = { ...options, ...harness }
  const startedAt = new Date()
  const { builds, describe, heading, outcomes } = await buildsOf(options.comparison, harness)
  const sides = builds.map((b) => b.side)
  const children: Child[] = []
  for (let i = 0; i < options.servers; i++) {
    for (const { side, target, env } of builds) {
      const server = await startService(target, options.pets, harness, env)
      children.push(server.child)
      side.servers.push(server)
      log(`cpu: ${side.name} server ${i + 1} of ${options.servers} ready (pid ${server.pid})`)
    }
  }

  // Sizing: a probe of the reference's first server (its second second: the first is mostly the
  // JIT). The other sides' first servers get the same load, so no server starts ahead.
  const requests: Record<string, number> = {}
  const warmupRequests: Record<string, number> = {}
  for (const workload of workloads) {
    for (const side of sides) await probe(side.servers[0]!, workload, 1, load)
    const ns = await probe(sides[0]!.servers[0]!, workload, 1, load)
    for (const side of sides.slice(1)) await probe(side.servers[0]!, workload, 1, load)
    requests[workload] = roundCount((options.runMs * 1e6) / ns)
    warmupRequests[workload] = roundCount((options.warmupS * 1e9) / ns)
    log(
      `cpu: ${workload}: ~${(ns / 1000).toFixed(1)} µs/request; runs of ${requests[workload]}, warm-up ${warmupRequests[workload]} per server`
    )
  }
  for (const side of sides)
    for (const [i, server] of side.servers.entries())
      for (const workload of workloads) {
        const { errors } = await measureRun(server, workload, warmupRequests[workload]!, load)
        if (errors > 0) throw new Error(`${side.name} server ${i + 1}: ${errors} errors in the ${workload} warm-up`)
      }

  log(`cpu: ${options.rounds} rounds × ${workloads.join(', ')} × ${sides.length} sides × 1 run`)
  const runs = await alternate({
    sides,
    workloads,
    rounds: options.rounds,
    requests,
    load,
    onRun: (run) =>
      log(
        `[r${run.round}] ${run.workload.padEnd(11)} ${run.side.padEnd(28)} #${run.server + 1} ${usPerRequest(run).toFixed(2).padStart(7)} µs/request ` +
          `(${run.requests} answers, ${(run.cpuNs / 1e6).toFixed(0)} ms CPU in ${run.wallMs.toFixed(0)} ms)${run.errors > 0 ? `  ERRORS ${run.errors}` : ''}`
      )
  })
  // Stopping a traced server flushes what it still buffers: then the receivers have seen it all.
  for (const child of children) await harness.stopServer(child)
  for (const outcome of outcomes) outcome.sink = outcome.receiver.counts()

  const reference = sides[0]!.name
  const summaries = summarizeAb(runs, reference)
  const problems = sinkProblems(outcomes)
  // The tracing A/B keeps files of its own, beside the revision A/B's.
  const { comparison: compared } = options
  const base =
    compared.kind === 'tracing' ? 'cpu-tracing' : compared.kind === 'log' ? 'cpu-log' : compared.traced === undefined ? 'cpu' : 'cpu-traced'
  const kind = `${base}${options.quick ? '-smoke' : ''}`
  const fellBack = runs.filter((r) => r.source === 'stat').length
  const runCpuMs = runs.map((r) => r.cpuNs / 1e6).sort((a, b) => a - b)[runs.length >> 1]!
  const report: CpuReport = {
    title: options.quick ? 'Animal Store CPU A/B: SMOKE RUN (--quick), not a measurement' : 'Animal Store CPU A/B',
    preamble: [
      `Command: \`${command}\` (${startedAt.toISOString()})`,
      ...harness.preamble,
      describe,
      `${options.rounds} rounds × ${options.servers} servers per side (used in turn), embedded SQLite store of ` +
        `${options.pets.toLocaleString('en-US')} pets each, enterprise key (the rate limiter runs on every request); ` +
        `requests per run: ${workloads.map((w) => `${w} ${requests[w]}`).join(', ')} (median run ${runCpuMs.toFixed(0)} ms of CPU); ` +
        `warm-up per server: ${workloads.map((w) => `${w} ${warmupRequests[w]}`).join(', ')} requests`
    ],
    heading,
    reference,
    labels: Object.fromEntries(builds.map((b) => [b.side.name, b.label])),
    summaries,
    runs,
    findings: [
      ...summaries.map((s) => `${s.workload}${sides.length > 2 ? `, ${s.side}` : ''}: ${s.verdict.text}`),
      ...summaries.map((s) => `${s.workload}${sides.length > 2 ? `, ${s.side}` : ''}, req/s: ${s.throughput.verdict.text}`),
      ...targetLines(outcomes, summaries),
      ...(outcomes.length === 0 ? [] : [`Exported to the receivers over the whole run: ${outcomes.map(sinkLine).join('; ')}`]),
      ...problems.map((p) => `FAILED: ${p}`)
    ],
    notes: [
      'Each run: the server process’s CPU time (its threads’ time on a CPU, /proc/<pid>/task/*/schedstat, ns) from quiet to quiet ' +
        'around exactly the stated number of answers, counted by wrk. Per round, the reference’s CPU per request ÷ the side’s, the runs ' +
        'back to back (which goes first turns); the median over rounds, and its 95% percentile bootstrap interval (10,000 resamples of the ' +
        'rounds, seed 1).',
      `LOSS when the median is below ${LOSS_BELOW}× (the project’s rule); GAIN above its inverse; otherwise "equal within ±X%" while the interval contains 1, ` +
        'else "slower" or "faster" by less than the rule.',
      'The server also answers the requests in flight when wrk stops (at most connections − 1), which wrk does not count: ' +
        'absolute µs are high by up to that share, the same on every side.',
      `Not seen: latency, time waiting for I/O (a create's fsync), and work done by another process. ${fellBack} run(s) fell back ` +
        'to utime + stime because a thread exited during the run.',
      ...(outcomes.length === 0
        ? []
        : [
            'A traced server exports a batch once 512 spans wait, or on its timer: the spans left waiting when a run ends ' +
              '(less than one batch) are exported between runs, outside any measured window.'
          ]),
      ...(summaries.some((s) => s.errors > 0) ? ['(!) marks a workload with socket errors, timeouts or non-2xx answers.'] : [])
    ]
  }
  process.stdout.write(`\n${renderCpuText(report)}`)
  const { comparison, ...settings } = options
  const body = {
    preamble: report.preamble,
    settings: { ...settings, outDir: undefined, load },
    ...(comparison.kind === 'revision'
      ? { revision: comparison.baseline, sides: { now: sides[1]!.name, before: reference } }
      : comparison.kind === 'log'
        ? { sides: { default: sides[1]!.name, warn: reference } }
        : { tracing: outcomes.map(({ receiver: _receiver, ...outcome }) => outcome), reference }),
    requests,
    warmupRequests,
    summaries,
    findings: report.findings,
    runs,
    notes: report.notes
  }
  const { jsonPath, mdPath } = writeResultFiles(
    options.outDir,
    { kind, title: report.title, command, startedAt },
    body,
    renderCpuMarkdown(report)
  )
  log(`\nbench: wrote ${jsonPath} and ${mdPath}`)
  if (problems.length > 0) throw new Error(`tracing was not on as asked: ${problems.join('; ')}`)
}
