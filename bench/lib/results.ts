// The results of a run: raw measurements, their summaries (medians with spread, ratios to the
// ceiling and to the naive baseline of the same round), the service against itself at the
// baseline revision, and the service's targets as verdicts.
import type { Revision } from './revision.ts'
import { spread, type Spread } from './stats.ts'
import type { Role, TargetId } from './targets.ts'
import { WORKLOADS, type WorkloadId } from './workloads.ts'

export interface Measurement {
  pets: number
  round: number
  workload: WorkloadId
  target: TargetId
  rps: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  requests: number
  /** Socket errors, timeouts and non-2xx answers: a measurement with any is not trusted. */
  errors: number
  non2xx: number
  /** Highest RSS of the server sampled while the load ran, MiB. */
  rssPeakMb: number
}

export interface Summary {
  pets: number
  workload: WorkloadId
  target: TargetId
  rounds: number
  errors: number
  rps: Spread
  p50Ms: Spread
  p99Ms: Spread
  rssPeakMb: Spread
  /** Per-round ratio to the ceiling of the same round and workload, then its spread. */
  vsCeiling: { rps?: Spread; p50Ms?: Spread; p99Ms?: Spread; rssPeakMb?: Spread }
  /** Per-round ratio of req/s to the naive baseline. */
  vsNaive: { rps?: Spread }
}

export interface ScaleComparison {
  workload: WorkloadId
  target: TargetId
  small: number
  large: number
  /** Per round, req/s at the small store over req/s at the large one (> 1: slower when larger); median over rounds. */
  rpsSlowdown: number
  /**
   * Per round, the same with each side taken as its ratio to the ceiling of the same store (×ceil at
   * the small store over ×ceil at the large), then the median over rounds: the two stores are
   * measured within the same round, and this also cancels what the machine's speed did between
   * them. Undefined for the ceiling itself.
   */
  ceilingSlowdown: number | undefined
  p50Growth: number
  p99Growth: number
}

/** A service target of this checkout against its copy at the baseline revision, at one store size and workload. */
export interface RevisionComparison {
  pets: number
  workload: WorkloadId
  /** This checkout's target ("now"). */
  target: TargetId
  /** The same target at the baseline revision ("before"). */
  baseline: TargetId
  /** Medians over rounds of each, and per round now ÷ before, then its spread (above 1: more req/s now). */
  rps: { now: number; before: number; ratio?: Spread }
  /** The same of p99 (below 1: a lower p99 now). */
  p99Ms: { now: number; before: number; ratio?: Spread }
  /** Socket errors, timeouts and non-2xx answers of either side. */
  errors: number
}

export interface TargetInfo {
  id: TargetId
  role: Role
  label: string
  /** For a target at the baseline revision: the target of this checkout it is compared with, and the revision. */
  baselineOf?: TargetId
  revision?: Revision
  skipped?: string
  /** VmHWM of the server process at the end of each scale, MiB. */
  hwmMb: Record<string, number>
  /** Whether the answers carried X-RateLimit-* headers (the limiter ran). */
  rateLimitHeaders?: boolean
  seedMs: Record<string, number>
}

export interface Startup {
  target: TargetId
  pets: number
  ms: Spread
  runs: number[]
}

export interface Verdict {
  ok: boolean
  target: TargetId
  check: string
  detail: string
}

const RATIO_KEYS = ['rps', 'p50Ms', 'p99Ms', 'rssPeakMb'] as const

function ratios(mine: Measurement[], others: Measurement[], key: (typeof RATIO_KEYS)[number]): Spread | undefined {
  const values: number[] = []
  for (const m of mine) {
    const other = others.find((o) => o.round === m.round)
    if (other !== undefined && other[key] > 0) values.push(m[key] / other[key])
  }
  return spread(values)
}

export function summarize(measurements: Measurement[]): Summary[] {
  const summaries: Summary[] = []
  const keys = new Set(measurements.map((m) => `${m.pets}|${m.workload}|${m.target}`))
  for (const key of keys) {
    const [petsText, workload, target] = key.split('|') as [string, WorkloadId, TargetId]
    const pets = Number(petsText)
    const of = (t: TargetId) => measurements.filter((m) => m.pets === pets && m.workload === workload && m.target === t)
    const mine = of(target)
    const ceiling = of('ceiling')
    const naive = of('naive')
    const vsCeiling: Summary['vsCeiling'] = {}
    if (target !== 'ceiling') for (const k of RATIO_KEYS) vsCeiling[k] = ratios(mine, ceiling, k)
    summaries.push({
      pets,
      workload,
      target,
      rounds: mine.length,
      errors: mine.reduce((sum, m) => sum + m.errors, 0),
      rps: spread(mine.map((m) => m.rps))!,
      p50Ms: spread(mine.map((m) => m.p50Ms))!,
      p99Ms: spread(mine.map((m) => m.p99Ms))!,
      rssPeakMb: spread(mine.map((m) => m.rssPeakMb))!,
      vsCeiling,
      vsNaive: target === 'naive' || target === 'ceiling' ? {} : { rps: ratios(mine, naive, 'rps') }
    })
  }
  return summaries
}

/** The cost of a larger store, round by round: both store sizes are measured in every round. */
export function compareScales(measurements: Measurement[], summaries: Summary[]): ScaleComparison[] {
  const scales = [...new Set(summaries.map((s) => s.pets))].sort((a, b) => a - b)
  if (scales.length < 2) return []
  const small = scales[0]!
  const large = scales[scales.length - 1]!
  const at = (pets: number, workload: WorkloadId, target: TargetId, round: number) =>
    measurements.find((m) => m.pets === pets && m.workload === workload && m.target === target && m.round === round)?.rps
  const out: ScaleComparison[] = []
  for (const s of summaries.filter((x) => x.pets === small)) {
    const l = summaries.find((x) => x.pets === large && x.workload === s.workload && x.target === s.target)
    if (l === undefined) continue
    const raw: number[] = []
    const normalised: number[] = []
    for (const round of new Set(measurements.map((m) => m.round))) {
      const mineSmall = at(small, s.workload, s.target, round)
      const mineLarge = at(large, s.workload, s.target, round)
      if (mineSmall === undefined || mineLarge === undefined || mineLarge <= 0) continue
      raw.push(mineSmall / mineLarge)
      const ceilSmall = at(small, s.workload, 'ceiling', round)
      const ceilLarge = at(large, s.workload, 'ceiling', round)
      if (s.target !== 'ceiling' && ceilSmall !== undefined && ceilLarge !== undefined && ceilSmall > 0)
        normalised.push(mineSmall / ceilSmall / (mineLarge / ceilLarge))
    }
    const rpsSlowdown = spread(raw)?.median ?? s.rps.median / l.rps.median
    out.push({
      workload: s.workload,
      target: s.target,
      small,
      large,
      rpsSlowdown,
      ceilingSlowdown: spread(normalised)?.median,
      p50Growth: l.p50Ms.median / s.p50Ms.median,
      p99Growth: l.p99Ms.median / s.p99Ms.median
    })
  }
  return out
}

/**
 * This checkout's service targets against themselves at the baseline revision, per store size and
 * workload: each ratio is taken per round (the two measured seconds apart), then the median over rounds.
 */
export function compareRevisions(measurements: Measurement[], summaries: Summary[], targets: TargetInfo[]): RevisionComparison[] {
  const out: RevisionComparison[] = []
  for (const before of targets) {
    if (before.baselineOf === undefined) continue
    for (const now of summaries.filter((s) => s.target === before.baselineOf)) {
      const then = summaries.find((s) => s.target === before.id && s.pets === now.pets && s.workload === now.workload)
      if (then === undefined) continue
      const of = (t: TargetId) => measurements.filter((m) => m.pets === now.pets && m.workload === now.workload && m.target === t)
      const mine = of(now.target)
      const theirs = of(then.target)
      out.push({
        pets: now.pets,
        workload: now.workload,
        target: now.target,
        baseline: then.target,
        rps: { now: now.rps.median, before: then.rps.median, ratio: ratios(mine, theirs, 'rps') },
        p99Ms: { now: now.p99Ms.median, before: then.p99Ms.median, ratio: ratios(mine, theirs, 'p99Ms') },
        errors: now.errors + then.errors
      })
    }
  }
  const workloadOrder = new Map(WORKLOADS.map((w, i) => [w.id, i]))
  const targetOrder = new Map(targets.map((t, i) => [t.id, i]))
  return out.sort(
    (a, b) =>
      a.pets - b.pets ||
      workloadOrder.get(a.workload)! - workloadOrder.get(b.workload)! ||
      (targetOrder.get(a.target) ?? 0) - (targetOrder.get(b.target) ?? 0)
  )
}

/** The limits the service is held to, as ratios measured in the same run. */
const TARGET_LIMITS = {
  listVsCeiling: 0.5,
  getVsCeiling: 0.5,
  createVsCeiling: 0.35,
  p99VsCeiling: 3,
  vsNaive: 4,
  largeStoreSlowdown: 1.2,
  rssMb: 200,
  startupMs: 1000
}

const x = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(2)}×`)

export function verdicts(options: {
  summaries: Summary[]
  scales: ScaleComparison[]
  targets: TargetInfo[]
  startups: Startup[]
  connections: number
}): Verdict[] {
  const { summaries, scales, targets, startups, connections } = options
  const out: Verdict[] = []
  const L = TARGET_LIMITS
  const services = targets.filter((t) => t.role === 'service' && t.skipped === undefined)
  const petsList = [...new Set(summaries.map((s) => s.pets))].sort((a, b) => a - b)
  // A run without the naive baseline (--targets) has nothing to judge that target by.
  const naiveRan = summaries.some((s) => s.target === 'naive')
  const operationOf = (w: WorkloadId) => WORKLOADS.find((x) => x.id === w)!.operation
  for (const target of services) {
    for (const pets of petsList) {
      const mine = summaries.filter((s) => s.target === target.id && s.pets === pets)
      if (mine.length === 0) continue
      const at = `${pets.toLocaleString('en-US')} pets`
      const check = (name: string, rows: Summary[], value: (s: Summary) => number | undefined, pass: (v: number) => boolean) => {
        if (rows.length === 0) return
        const values = rows.map((s) => ({ s, v: value(s) }))
        const ok = values.every(({ v }) => v !== undefined && pass(v)) && rows.every((s) => s.errors === 0)
        const detail = values.map(({ s, v }) => `${s.workload} ${x(v)}${s.errors > 0 ? ' (errors!)' : ''}`).join(', ')
        out.push({ ok, target: target.id, check: `${name} @ ${at}`, detail })
      }
      check(
        `list ≥ ${L.listVsCeiling}× ceiling req/s`,
        mine.filter((s) => operationOf(s.workload) === 'list'),
        (s) => s.vsCeiling.rps?.median,
        (v) => v >= L.listVsCeiling
      )
      check(
        `get ≥ ${L.getVsCeiling}× ceiling req/s`,
        mine.filter((s) => operationOf(s.workload) === 'get'),
        (s) => s.vsCeiling.rps?.median,
        (v) => v >= L.getVsCeiling
      )
      check(
        `durable create ≥ ${L.createVsCeiling}× write ceiling req/s`,
        mine.filter((s) => operationOf(s.workload) === 'create'),
        (s) => s.vsCeiling.rps?.median,
        (v) => v >= L.createVsCeiling
      )
      check(
        `p99 ≤ ${L.p99VsCeiling}× ceiling p99 at ${connections} connections`,
        mine,
        (s) => s.vsCeiling.p99Ms?.median,
        (v) => v <= L.p99VsCeiling
      )
      check(
        `req/s ≥ ${L.vsNaive}× naive baseline`,
        naiveRan ? mine : [],
        (s) => s.vsNaive.rps?.median,
        (v) => v >= L.vsNaive
      )
    }
    const flat = scales.filter((c) => c.target === target.id)
    if (flat.length > 0) {
      // Judged on the ceiling-normalised slowdown: the raw one also measures the machine's drift between the two runs it compares.
      const ok = flat.every((c) => c.ceilingSlowdown !== undefined && c.ceilingSlowdown <= L.largeStoreSlowdown)
      const c0 = flat[0]!
      out.push({
        ok,
        target: target.id,
        check:
          `${c0.large.toLocaleString('en-US')} pets within ${L.largeStoreSlowdown}× of ` +
          `${c0.small.toLocaleString('en-US')} (×ceil req/s, small ÷ large)`,
        detail: flat.map((c) => `${c.workload} ${x(c.ceilingSlowdown)} (raw ${x(c.rpsSlowdown)})`).join(', ')
      })
    }
    const peaks = Object.entries(target.hwmMb)
    const sampled = summaries.filter((s) => s.target === target.id).map((s) => s.rssPeakMb.max)
    const peak = Math.max(...peaks.map(([, v]) => v), ...sampled)
    if (Number.isFinite(peak)) {
      const hwm = peaks.map(([pets, v]) => `VmHWM ${v.toFixed(0)} MB @ ${Number(pets).toLocaleString('en-US')} pets`)
      out.push({
        ok: peak <= L.rssMb,
        target: target.id,
        check: `peak RSS ≤ ${L.rssMb} MB`,
        detail: `${peak.toFixed(0)} MB (${hwm.join(', ')})`
      })
    }
    const largest = startups.filter((s) => s.target === target.id).sort((a, b) => b.pets - a.pets)[0]
    if (largest !== undefined) {
      out.push({
        ok: largest.ms.median <= L.startupMs,
        target: target.id,
        check: `start-up to first served request ≤ ${L.startupMs} ms @ ${largest.pets.toLocaleString('en-US')} pets`,
        detail: `${largest.ms.median.toFixed(0)} ms median (${largest.ms.min.toFixed(0)}–${largest.ms.max.toFixed(0)})`
      })
    }
  }
  return out
}
