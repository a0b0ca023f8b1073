import type { Granularity, UsageBucket } from '@animal-store/contract'
import { useEffect, useId, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { count } from '../../labels.ts'
import { useView } from '../../session.ts'
import { displayTime } from '../../time.ts'
import { ExportCsv } from '../export-csv.tsx'
import { followWidth, plotOptions, stackedData } from './plot.ts'
import { hasRequests, SERIES, totalsOf, usageCsv } from './series.ts'

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
    const plot = new uPlot(plotOptions(element, zone), stackedData(buckets, granularity), element)
    const unfollow = followWidth(plot, element)
    return () => {
      unfollow()
      plot.destroy()
    }
  }, [buckets, granularity, zone])

  const used = (buckets ?? []).filter(hasRequests)
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
        <ExportCsv name={exportName} load={async (zoneNow) => usageCsv(buckets ?? [], zoneNow)} />
      </details>
    </figure>
  )
}
