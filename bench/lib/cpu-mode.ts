// `npm run bench -- --cpu --baseline-rev REV`: the embedded service of this checkout against the
// service at REV by the CPU time its server process spends per request (see cpu-ab.ts), over
// many short alternating rounds, with several servers per build. Servers run on core 0, wrk on core 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOSS_BELOW } from './ab-stats.ts'
import { alternate, measureRun, probe, summarizeAb, usPerRequest, type AbServer, type AbSide, type LoadSettings } from './cpu-ab.ts'
import { renderCpuMarkdown, renderCpuText, type CpuReport } from './cpu-report.ts'
import { collectPages, waitFor200 } from './http.ts'
import type { Child } from './processes.ts'
import { writeResultFiles } from './result-files.ts'
import { prepareWorktree, revisionName, type Revision } from './revision.ts'
import { sanityCheck } from './sanity.ts'
import { baselineTargets, checkoutAt, SERVICE_BIN_PATH, TARGETS, type Store, type Target } from './targets.ts'
import { LIST_PATH, PAGES, requestPlan, type WorkloadId } from './workloads.ts'

export interface CpuModeOptions {
  baseline: Revision
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
async function startService(target: Target, pets: number, harness: Harness): Promise<AbServer & { child: Child }> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-cpu-'))
  harness.defer(async () => rmSync(dir, { recursive: true, force: true }))
  const context = { dir, runId: harness.runId, pgUrl: '', redisUrl: '', naiveSynchronous: undefined, defer: harness.defer }
  const store = await target.setup(context, pets)
  const { child, origin } = await harness.startServer(target, store)
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

export async function runCpuMode(options: CpuModeOptions, harness: Harness, command: string): Promise<void> {
  const { baseline, workloads, load, log } = { ...options, ...harness }
  const startedAt = new Date()
  const checkout = checkoutAt(await prepareWorktree(harness.root, baseline, { needs: SERVICE_BIN_PATH, defer: harness.defer, log }))
  const now = TARGETS.find((t) => t.id === 'service-sqlite')!
  const before = baselineTargets(checkout, baseline.short, [now.id])[0]!
  const sides: AbSide[] = [
    { name: before.id, servers: [] },
    { name: now.id, servers: [] }
  ]
  const children: Child[] = []
  for (let i = 0; i < options.servers; i++) {
    for (const [side, target] of [
      [sides[0]!, before],
      [sides[1]!, now]
    ] as const) {
      const server = await startService(target, options.pets, harness)
      children.push(server.child)
      side.servers.push(server)
      log(`cpu: ${target.id} server ${i + 1} of ${options.servers} ready (pid ${server.pid})`)
    }
  }

  // Sizing: a probe of the baseline's first server (its second second: the first is mostly the
  // JIT). The other build's first server gets the same load, so no server starts ahead.
  const requests: Record<string, number> = {}
  const warmupRequests: Record<string, number> = {}
  for (const workload of workloads) {
    for (const side of sides) await probe(side.servers[0]!, workload, 1, load)
    const ns = await probe(sides[0]!.servers[0]!, workload, 1, load)
    await probe(sides[1]!.servers[0]!, workload, 1, load)
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

  log(`cpu: ${options.rounds} rounds × ${workloads.join(', ')} × 2 builds × 1 run`)
  const runs = await alternate({
    sides,
    workloads,
    rounds: options.rounds,
    requests,
    load,
    onRun: (run) =>
      log(
        `[r${run.round}] ${run.workload.padEnd(11)} ${run.side.padEnd(24)} #${run.server + 1} ${usPerRequest(run).toFixed(2).padStart(7)} µs/request ` +
          `(${run.requests} answers, ${(run.cpuNs / 1e6).toFixed(0)} ms CPU in ${run.wallMs.toFixed(0)} ms)${run.errors > 0 ? `  ERRORS ${run.errors}` : ''}`
      )
  })
  for (const child of children) await harness.stopServer(child)

  const summaries = summarizeAb(runs, before.id)
  const kind = options.quick ? 'cpu-smoke' : 'cpu'
  const fellBack = runs.filter((r) => r.source === 'stat').length
  const runCpuMs = runs.map((r) => r.cpuNs / 1e6).sort((a, b) => a - b)[runs.length >> 1]!
  const report: CpuReport = {
    title: options.quick ? 'Animal Store CPU A/B: SMOKE RUN (--quick), not a measurement' : 'Animal Store CPU A/B',
    preamble: [
      `Command: \`${command}\` (${startedAt.toISOString()})`,
      ...harness.preamble,
      `Builds: now = this checkout (${now.id}); before = ${revisionName(baseline)}, commit ${baseline.commit} (${before.id})`,
      `${options.rounds} rounds × ${options.servers} servers per build (used in turn), embedded SQLite store of ` +
        `${options.pets.toLocaleString('en-US')} pets each, enterprise key (the rate limiter runs on every request); ` +
        `requests per run: ${workloads.map((w) => `${w} ${requests[w]}`).join(', ')} (median run ${runCpuMs.toFixed(0)} ms of CPU); ` +
        `warm-up per server: ${workloads.map((w) => `${w} ${warmupRequests[w]}`).join(', ')} requests`
    ],
    now: now.id,
    before: before.id,
    summaries,
    runs,
    notes: [
      'Each run: the server process’s CPU time (its threads’ time on a CPU, /proc/<pid>/task/*/schedstat, ns) from quiet to quiet ' +
        'around exactly the stated number of answers, counted by wrk. Per round, before ÷ now of CPU per request, the two runs back to ' +
        'back (which goes first alternates); the median over rounds, and its 95% percentile bootstrap interval (10,000 resamples of the ' +
        'rounds, seed 1).',
      `LOSS when the median is below ${LOSS_BELOW}× (the project’s rule); GAIN above its inverse; otherwise "equal within ±X%" while the interval contains 1, ` +
        'else "slower" or "faster" by less than the rule.',
      'The server also answers the requests in flight when wrk stops (at most connections − 1), which wrk does not count: ' +
        'absolute µs are high by up to that share, the same on both sides.',
      `Not seen: latency, time waiting for I/O (a create's fsync), and work done by another process. ${fellBack} run(s) fell back ` +
        'to utime + stime because a thread exited during the run.',
      ...(summaries.some((s) => s.errors > 0) ? ['(!) marks a workload with socket errors, timeouts or non-2xx answers.'] : [])
    ]
  }
  process.stdout.write(`\n${renderCpuText(report)}`)
  const { baseline: _revision, ...settings } = options
  const body = {
    preamble: report.preamble,
    settings: { ...settings, outDir: undefined, load },
    revision: baseline,
    sides: { now: now.id, before: before.id },
    requests,
    warmupRequests,
    summaries,
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
}
