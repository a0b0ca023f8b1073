// Renders a CPU A/B (`npm run bench -- --cpu`) as the text printed at the end and as Markdown.
import { LOSS_BELOW } from './ab-stats.ts'
import { usPerRequest, type AbSummary, type CpuRun } from './cpu-ab.ts'
import { markdown, text, type Table } from './report.ts'
import type { Spread } from './stats.ts'

export interface CpuReport {
  title: string
  /** Lines describing the machine, the command and the settings. */
  preamble: string[]
  /** The side measured ("now": this checkout) and the reference ("before": the revision). */
  now: string
  before: string
  summaries: AbSummary[]
  runs: CpuRun[]
  notes: string[]
}

const us = (n: number) => n.toFixed(2)
const withRange = (s: Spread) => `${us(s.median)} (${us(s.min)}–${us(s.max)})`
const times = (n: number) => `${n.toFixed(3)}×`

function table(report: CpuReport): Table {
  return {
    header: [
      'workload',
      'rounds',
      'µs/request now (min–max)',
      'µs/request before (min–max)',
      'speed now ÷ before',
      '95% interval',
      'verdict'
    ],
    rows: report.summaries.map((s) => [
      `${s.workload}${s.errors > 0 ? ' (!)' : ''}`,
      String(s.rounds),
      withRange(s.usPerRequest.side),
      withRange(s.usPerRequest.reference),
      times(s.interval.median),
      `${times(s.interval.low)}–${times(s.interval.high)}`,
      s.verdict.label
    ]),
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'l']
  }
}

/** Each server's median CPU per request: how much processes of one build differ. */
function serverLines(report: CpuReport): string[] {
  const lines: string[] = []
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
    lines.push(`${workload}: now ${of(report.now)}; before ${of(report.before)}`)
  }
  return lines
}

const verdictLines = (report: CpuReport) => report.summaries.map((s) => `${s.workload}: ${s.verdict.text}`)

const heading = (report: CpuReport) =>
  `CPU time per request: this checkout ("now", ${report.now}) against ${report.before} ("before"); ` +
  `speed now ÷ before = CPU per request before ÷ now, per round, median over rounds (below 1: slower now; below ${LOSS_BELOW}×: a loss)`

export function renderCpuText(report: CpuReport): string {
  return [
    `== ${report.title} ==`,
    ...report.preamble,
    `\n-- ${heading(report)} --`,
    text(table(report)),
    '',
    ...verdictLines(report),
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
    '',
    '```',
    ...verdictLines(report),
    '```',
    '\n## Median µs/request of each server, in the order they were started\n',
    ...serverLines(report).map((l) => `- ${l}`),
    '',
    ...report.notes.map((n) => `- ${n}`),
    ''
  ].join('\n')
}
