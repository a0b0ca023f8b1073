// Renders a run as the side-by-side text table printed at the end, and as Markdown.
import type { Spread } from './stats.ts'
import type { RevisionComparison, ScaleComparison, Startup, Summary, TargetInfo, Verdict } from './results.ts'
import { revisionName } from './revision.ts'
import { WORKLOADS } from './workloads.ts'

export interface Report {
  title: string
  /** Lines describing the machine, the command and the settings. */
  preamble: string[]
  targets: TargetInfo[]
  summaries: Summary[]
  scales: ScaleComparison[]
  /** This checkout's service against itself at the baseline revision (empty without one). */
  revisions: RevisionComparison[]
  startups: Startup[]
  verdicts: Verdict[]
  notes: string[]
}

const int = (n: number) => Math.round(n).toLocaleString('en-US')
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))
const times = (n: number) => `${n.toFixed(2)}×`
const ratio = (s: Spread | undefined) => (s === undefined ? '' : times(s.median))
const withRange = (s: Spread, f: (n: number) => string) => (s.n > 1 ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median))
const petsLabel = (n: number) => `${n.toLocaleString('en-US')} pets`

export type Table = { header: string[]; rows: string[][]; align?: Array<'l' | 'r'> }

export function text(table: Table): string {
  const widths = table.header.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => ((table.align?.[i] ?? 'l') === 'r' ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(table.header), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(line)].join('\n')
}

export function markdown(table: Table): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`
  const rule = `|${table.header
    .map((_, i) => ((table.align?.[i] ?? 'l') === 'r' ? '---:' : '---'))
    .map((r) => `${r}|`)
    .join('')}`
  return [line(table.header), rule, ...table.rows.map(line)].join('\n')
}

function mainTable(report: Report, pets: number): Table {
  const order = new Map(report.targets.map((t, i) => [t.id, i]))
  const rows: string[][] = []
  for (const workload of WORKLOADS) {
    const forWorkload = report.summaries
      .filter((s) => s.pets === pets && s.workload === workload.id)
      .sort((a, b) => order.get(a.target)! - order.get(b.target)!)
    for (const s of forWorkload) {
      rows.push([
        workload.id,
        `${s.target}${s.errors > 0 ? ' (!)' : ''}`,
        withRange(s.rps, int),
        ratio(s.vsCeiling.rps),
        ratio(s.vsNaive.rps),
        ms(s.p50Ms.median),
        ratio(s.vsCeiling.p50Ms),
        withRange(s.p99Ms, ms),
        ratio(s.vsCeiling.p99Ms),
        s.rssPeakMb.median.toFixed(0),
        ratio(s.vsCeiling.rssPeakMb)
      ])
    }
  }
  return {
    header: ['workload', 'target', 'req/s (min–max)', '×ceil', '×naive', 'p50 ms', '×ceil', 'p99 ms (min–max)', '×ceil', 'RSS MB', '×ceil'],
    rows,
    align: ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']
  }
}

function scaleTable(report: Report): Table | undefined {
  if (report.scales.length === 0) return undefined
  const { small, large } = report.scales[0]!
  const find = (c: ScaleComparison, pets: number) =>
    report.summaries.find((s) => s.pets === pets && s.workload === c.workload && s.target === c.target)!
  return {
    header: [
      'workload',
      'target',
      `req/s ${int(small)}`,
      `req/s ${int(large)}`,
      'slowdown',
      '×ceil slowdown',
      `p50 ms ${int(small)}`,
      `p50 ms ${int(large)}`,
      `p99 ms ${int(small)}`,
      `p99 ms ${int(large)}`
    ],
    rows: report.scales.map((c) => [
      c.workload,
      c.target,
      int(find(c, small).rps.median),
      int(find(c, large).rps.median),
      `${c.rpsSlowdown.toFixed(2)}×`,
      c.ceilingSlowdown === undefined ? '' : `${c.ceilingSlowdown.toFixed(2)}×`,
      ms(find(c, small).p50Ms.median),
      ms(find(c, large).p50Ms.median),
      ms(find(c, small).p99Ms.median),
      ms(find(c, large).p99Ms.median)
    ]),
    align: ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']
  }
}

function revisionTable(report: Report): Table | undefined {
  if (report.revisions.length === 0) return undefined
  return {
    header: [
      'pets',
      'workload',
      'target',
      'req/s now',
      'req/s before',
      'now ÷ before (min–max)',
      'p99 ms now',
      'p99 ms before',
      'now ÷ before (min–max)'
    ],
    rows: report.revisions.map((c) => [
      int(c.pets),
      c.workload,
      `${c.target}${c.errors > 0 ? ' (!)' : ''}`,
      int(c.rps.now),
      int(c.rps.before),
      c.rps.ratio === undefined ? '' : withRange(c.rps.ratio, times),
      ms(c.p99Ms.now),
      ms(c.p99Ms.before),
      c.p99Ms.ratio === undefined ? '' : withRange(c.p99Ms.ratio, times)
    ]),
    align: ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r']
  }
}

/** "before" as the heading names it: the revision as given and its short commit. */
function revisionsOf(report: Report): string {
  return [...new Map(report.targets.flatMap((t) => (t.revision === undefined ? [] : [[t.revision.commit, t.revision]]))).values()]
    .map(revisionName)
    .join(', ')
}

function startupTable(report: Report): Table | undefined {
  if (report.startups.length === 0) return undefined
  return {
    header: ['target', 'pets', 'start-up to first served GET /v1/pets, ms (min–max)'],
    rows: report.startups.map((s) => [s.target, int(s.pets), withRange(s.ms, (n) => n.toFixed(0))]),
    align: ['l', 'r', 'r']
  }
}

function sections(report: Report, render: (t: Table) => string, heading: (h: string) => string): string[] {
  const out: string[] = []
  const petsList = [...new Set(report.summaries.map((s) => s.pets))].sort((a, b) => a - b)
  for (const pets of petsList) out.push(heading(`Throughput and latency, store of ${petsLabel(pets)}`), render(mainTable(report, pets)))
  const scales = scaleTable(report)
  if (scales !== undefined)
    out.push(
      heading(
        'Cost against store size (slowdown = small ÷ large per round, of req/s and of ×ceil, median over rounds; the verdict uses ×ceil)'
      ),
      render(scales)
    )
  const revisions = revisionTable(report)
  if (revisions !== undefined) {
    out.push(
      heading(
        `Before/after: this checkout ("now") against ${revisionsOf(report)} ("before"), now ÷ before per round, ` +
          'median over rounds (req/s above 1, p99 below 1: better now)'
      ),
      render(revisions)
    )
  }
  const startups = startupTable(report)
  if (startups !== undefined) out.push(heading('Start-up'), render(startups))
  return out
}

const verdictLine = (v: Verdict) => `${v.ok ? 'PASS' : 'FAIL'}  ${v.target}  ${v.check}: ${v.detail}`

export function renderText(report: Report): string {
  const parts = [`== ${report.title} ==`, ...report.preamble]
  for (const t of report.targets) if (t.skipped !== undefined) parts.push(`SKIPPED ${t.id}: ${t.skipped}`)
  parts.push(...sections(report, text, (h) => `\n-- ${h} --`))
  if (report.verdicts.length > 0) parts.push('\n-- Targets (ratios measured in this run) --', ...report.verdicts.map(verdictLine))
  if (report.notes.length > 0) parts.push('', ...report.notes)
  return `${parts.join('\n')}\n`
}

export function renderMarkdown(report: Report): string {
  const parts = [`# ${report.title}`, '', ...report.preamble.map((l) => `- ${l}`)]
  const skipped = report.targets.filter((t) => t.skipped !== undefined)
  if (skipped.length > 0) parts.push('', ...skipped.map((t) => `- **Skipped ${t.id}**: ${t.skipped}`))
  parts.push('', 'Targets:', '', ...report.targets.filter((t) => t.skipped === undefined).map((t) => `- \`${t.id}\`: ${t.label}`))
  parts.push(...sections(report, markdown, (h) => `\n## ${h}\n`))
  if (report.verdicts.length > 0)
    parts.push('\n## Targets (ratios measured in this run)\n', '```', ...report.verdicts.map(verdictLine), '```')
  if (report.notes.length > 0) parts.push('', ...report.notes.map((n) => `- ${n}`))
  return `${parts.join('\n')}\n`
}
