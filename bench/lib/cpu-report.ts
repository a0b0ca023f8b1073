// Renders a CPU A/B (`npm run bench -- --cpu`) as the text printed at the end and as Markdown.
import { LOSS_BELOW } from './ab-stats.ts'
import { usPerRequest, type AbSummary, type CpuRun } from './cpu-ab.ts'
import { markdown, text, type Table } from './report.ts'
import type { Spread } from './stats.ts'

export interface CpuReport {
  title: string
  /** Lines describing the machine, the command and the settings. */
  preamble: string[]
  /** What is compared with what, and how the speed ratio reads. */
  heading: string
  /** The side every other is compared with ("before": the revision; or tracing off). */
  reference: string
  /** Each side's short name in the table: `now`, `before`, `off`, `always_on`. */
  labels: Record<string, string>
  summaries: AbSummary[]
  runs: CpuRun[]
  /** Verdicts, targets and checks, one line each. */
  findings: string[]
  notes: string[]
}

const us = (n: number) => n.toFixed(2)
const withRange = (s: Spread) => `${us(s.median)} (${us(s.min)}–${us(s.max)})`
const times = (n: number) => `${n.toFixed(3)}×`

function table(report: CpuReport): Table {
  const reference = report.labels[report.reference] ?? report.reference
  // With more than one side compared, a column names each; with one, the headers do.
  const sides = new Set(report.summaries.map((s) => s.side))
  const single = sides.size === 1 ? (report.labels[[...sides][0]!] ?? '') : undefined
  return {
    header: [
      'workload',
      ...(single === undefined ? ['side'] : []),
      'rounds',
      `µs/request ${single ?? 'side'} (min–max)`,
      `µs/request ${reference} (min–max)`,
      `speed ${single ?? 'side'} ÷ ${reference}`,
      '95% interval',
      'verdict'
    ],
    rows: report.summaries.map((s) => [
      `${s.workload}${s.errors > 0 ? ' (!)' : ''}`,
      ...(single === undefined ? [report.labels[s.side] ?? s.side] : []),
      String(s.rounds),
      withRange(s.usPerRequest.side),
      withRange(s.usPerRequest.reference),
      times(s.interval.median),
      `${times(s.interval.low)}–${times(s.interval.high)}`,
      s.verdict.label
    ]),
    align: ['l', ...(single === undefined ? ['l' as const] : []), 'r', 'r', 'r', 'r', 'r', 'l']
  }
}

const thousands = (n: number) => `${(n / 1000).toFixed(1)}k`
const percent = (n: number) => `${(n * 100).toFixed(0)}%`

/** The second instrument from the same runs: req/s at saturation by wrk's clock, and how busy the server was. */
function throughputTable(report: CpuReport): Table {
  const reference = report.labels[report.reference] ?? report.reference
  const sides = new Set(report.summaries.map((s) => s.side))
  const single = sides.size === 1 ? (report.labels[[...sides][0]!] ?? '') : undefined
  return {
    header: [
      'workload',
      ...(single === undefined ? ['side'] : []),
      `req/s ${single ?? 'side'} (min–max)`,
      `req/s ${reference} (min–max)`,
      `req/s ${single ?? 'side'} ÷ ${reference}`,
      '95% interval',
      'verdict',
      `busy ${single ?? 'side'} (q1–q3)`,
      `busy ${reference} (q1–q3)`
    ],
    rows: report.summaries.map(({ throughput: t, ...s }) => [
      `${s.workload}${s.errors > 0 ? ' (!)' : ''}`,
      ...(single === undefined ? [report.labels[s.side] ?? s.side] : []),
      `${thousands(t.rps.side.median)} (${thousands(t.rps.side.min)}–${thousands(t.rps.side.max)})`,
      `${thousands(t.rps.reference.median)} (${thousands(t.rps.reference.min)}–${thousands(t.rps.reference.max)})`,
      times(t.interval.median),
      `${times(t.interval.low)}–${times(t.interval.high)}`,
      t.verdict.label,
      `${percent(t.busy.side.median)} (${percent(t.busy.side.q1)}–${percent(t.busy.side.q3)})`,
      `${percent(t.busy.reference.median)} (${percent(t.busy.reference.q1)}–${percent(t.busy.reference.q3)})`
    ]),
    align: ['l', ...(single === undefined ? ['l' as const] : []), 'r', 'r', 'r', 'r', 'l', 'r', 'r']
  }
}

const THROUGHPUT_HEADING =
  'Throughput at saturation, from the same runs: answers per second by wrk’s clock, per round, median over rounds; ' +
  'busy = the server’s CPU time while wrk ran ÷ that time (well below 100%: it idled while 50 connections waited)'

/** Each server's median CPU per request: how much processes of one build differ. */
function serverLines(report: CpuReport): string[] {
  const lines: string[] = []
  const sides = [...new Set(report.runs.map((r) => r.side))]
  for (const workload of [...new Set(report.runs.map((r) => r.workload))]) {
    const of = (side: string) => {
      const servers = [...new Set(report.runs.filter((r) => r.side === side).map((r) => r.server))].sort((a, b) => a - b)
      return servers
        .map((server) => {
          const values = report.runs.filter((r) => r.workload === workload && r.side === side && r.server === server).map(usPerRequest)
          return us(values.sort((a, b) => a - b)[values.length >> 1]!)
        })
        .join(', ')
    }
    lines.push(`${workload}: ${sides.map((side) => `${report.labels[side] ?? side} ${of(side)}`).join('; ')}`)
  }
  return lines
}

const heading = (report: CpuReport) =>
  `CPU time per request: ${report.heading}, per round, median over rounds (below 1: slower; below ${LOSS_BELOW}×: a loss)`

export function renderCpuText(report: CpuReport): string {
  return [
    `== ${report.title} ==`,
    ...report.preamble,
    `\n-- ${heading(report)} --`,
    text(table(report)),
    `\n-- ${THROUGHPUT_HEADING} --`,
    text(throughputTable(report)),
    '',
    ...report.findings,
    '\n-- Median µs/request of each server, in the order they were started --',
    ...serverLines(report),
    '',
    ...report.notes,
    ''
  ].join('\n')
}

export function renderCpuMarkdown(report: CpuReport): string {
  return [
    `# ${report.title}`,
    '',
    ...report.preamble.map((l) => `- ${l}`),
    `\n## ${heading(report)}\n`,
    markdown(table(report)),
    `\n## ${THROUGHPUT_HEADING}\n`,
    markdown(throughputTable(report)),
    '',
    '```',
    ...report.findings,
    '```',
    '\n## Median µs/request of each server, in the order they were started\n',
    ...serverLines(report).map((l) => `- ${l}`),
    '',
    ...report.notes.map((n) => `- ${n}`),
    ''
  ].join('\n')
}
