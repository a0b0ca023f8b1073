import type { Granularity, UsageBucket } from '@animal-store/contract'
import { useEffect, useId, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { count } from '../labels.ts'
import { useView } from '../session.ts'
import { displayTime, isoInZone, type Zone } from '../time.ts'
import { ExportCsv } from './export-csv.tsx'

// One series per outcome, coloured by the CSS custom properties the legend's swatches use too.
const SERIES = [
  { field: 'allowed', label: 'Allowed', color: '--allowed' },
  { field: 'rateLimited', label: 'Rate limited', color: '--rate-limited' },
  { field: 'banned', label: 'Banned', color: '--banned' }
] as const
type Outcome = (typeof SERIES)[number]['field']

const HEIGHT = 260
// Whole requests only: no tick at 0.5.
const COUNT_STEPS = Array.from({ length: 13 }, (_, power) => [1, 2, 5].map((step) => step * 10 ** power)).flat()

/** `10:15`, with the date under the first tick of each day: in the zone chosen, never a 12-hour clock. */
function timeTicks(splits: number[], zone: Zone): string[] {
  let previousDay = ''
  return splits.map((seconds) => {
    const iso = isoInZone(new Date(seconds * 1000), zone)
    const day = iso.slice(0, 10)
    const label = day === previousDay ? iso.slice(11, 16) : `${iso.slice(11, 16)}\n${day}`
    previousDay = day
    return label
  })
}

function totalsOf(buckets: readonly UsageBucket[]): Record<Outcome, number> {
  const totals = { allowed: 0, rateLimited: 0, banned: 0 }
  for (const bucket of buckets) for (const { field } of SERIES) totals[field] += bucket[field]
  return totals
}

function plotOptions(element: HTMLElement, zone: Zone): uPlot.Options {
  const style = getComputedStyle(element)
  const css = (name: string) => style.getPropertyValue(name).trim()
  const axis = { stroke: css('--text-muted'), grid: { stroke: css('--grid') }, ticks: { stroke: css('--grid') } }
  return {
    width: element.clientWidth,
    height: HEIGHT,
    legend: { show: false },
    tzDate: zone === 'utc' ? (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC') : (seconds) => new Date(seconds * 1000),
    scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(1, max)] } },
    axes: [
      { ...axis, values: (_plot, splits) => timeTicks(splits, zone) },
      { ...axis, size: 56, incrs: COUNT_STEPS, values: (_plot, splits) => splits.map(count) }
    ],
    series: [
      {},
      ...SERIES.map(({ label, color }) => ({
        label,
        stroke: css(color),
        width: 2,
        points: { show: false },
        paths: uPlot.paths.stepped?.({ align: 1 })
      }))
    ]
  }
}

interface UsageChartProps {
  /** The chart's accessible name: "Usage of NAME". */
  title: string
  buckets: readonly UsageBucket[] | undefined
  granularity: Granularity
  /** The range shown, for the totals: "24 hours". */
  rangeLabel: string
  /** The CSV file's name: `usage-NAME`. */
  exportName: string
}

/**
 * Requests by outcome over time: a uPlot canvas (role img, named `title`), a legend with each
 * series' total, which also describes the image, and the plotted numbers as a table.
 */
export function UsageChart({ title, buckets, granularity, rangeLabel, exportName }: UsageChartProps) {
  const { zone } = useView()
  const plotElement = useRef<HTMLDivElement>(null)
  const legendId = useId()
  const totals = totalsOf(buckets ?? [])

  useEffect(() => {
    const element = plotElement.current
    if (element === null || buckets === undefined) return
    const times = buckets.map((bucket) => Date.parse(bucket.start) / 1000)
    const data: uPlot.AlignedData = [times, ...SERIES.map(({ field }) => buckets.map((bucket) => bucket[field]))]
    const plot = new uPlot(plotOptions(element, zone), data, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [buckets, zone])

  const used = (buckets ?? []).filter((bucket) => bucket.allowed + bucket.rateLimited + bucket.banned > 0)
  return (
    <figure class="chart">
      <div ref={plotElement} class="plot" role="img" aria-label={title} aria-describedby={legendId} aria-busy={buckets === undefined} />
      <ul class="legend" id={legendId} aria-label={`Totals, last ${rangeLabel}`}>
        <li class="legend-caption" aria-hidden="true">
          Last {rangeLabel}:
        </li>
        {SERIES.map(({ field, label }) => (
          <li key={field} data-series={field} data-total={totals[field]}>
            <span class={`swatch swatch-${field}`} aria-hidden="true" />
            {label} <strong>{count(totals[field])}</strong>
          </li>
        ))}
      </ul>
      <details class="chart-data">
        <summary>Chart data</summary>
        <table>
          <caption>
            {title}, by {granularity} (only {granularity}s with requests)
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {SERIES.map(({ field, label }) => (
                <th key={field} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {used.map((bucket) => (
              <tr key={bucket.start}>
                <th scope="row">
                  <time dateTime={bucket.start}>{displayTime(bucket.start, zone)}</time>
                </th>
                {SERIES.map(({ field }) => (
                  <td key={field}>{count(bucket[field])}</td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {SERIES.map(({ field }) => (
                <td key={field}>{count(totals[field])}</td>
              ))}
            </tr>
          </tfoot>
        </table>
        <ExportCsv
          name={exportName}
          load={async (zoneNow) => ({
            header: ['Start', ...SERIES.map(({ label }) => label)],
            rows: (buckets ?? []).map((bucket) => [isoInZone(bucket.start, zoneNow), ...SERIES.map(({ field }) => bucket[field])])
          })}
        />
      </details>
    </figure>
  )
}
