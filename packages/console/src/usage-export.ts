import type { Granularity, UsageExportQuery } from '@animal-store/contract'
import { isoInZone } from './time.ts'

// The billing export of the Usage screen (DESIGN.md §8): the range on screen, widened to whole
// periods of the export, which takes only period boundaries (whole UTC hours or UTC midnights).

export type ExportFormat = NonNullable<UsageExportQuery['format']>
export type ExportGranularity = NonNullable<UsageExportQuery['granularity']>

const PERIOD_MS = { hour: 3_600_000, day: 86_400_000 } satisfies Record<ExportGranularity, number>

/** By day when the screen shows days; by hour otherwise (minutes are not exported). */
export function exportGranularity(granularity: Granularity): ExportGranularity {
  return granularity === 'day' ? 'day' : 'hour'
}

/**
 * The export's query for a range shown at `granularity`: `from` down to the boundary at or before
 * it, `to` up to the boundary at or after it, both in UTC (the epoch is a UTC midnight).
 */
export function exportQuery(
  range: { from: string; to: string },
  granularity: Granularity,
  format: ExportFormat
): Required<UsageExportQuery> {
  const period = exportGranularity(granularity)
  const step = PERIOD_MS[period]
  const from = Math.floor(Date.parse(range.from) / step) * step
  const to = Math.ceil(Date.parse(range.to) / step) * step
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), granularity: period, format }
}

/** `animal-store-usage-2026-11-26T10-00-00Z-2026-11-27T11-00-00Z-hour.ndjson`: colons are not allowed in every file system's names. */
export function exportFileName(query: Pick<Required<UsageExportQuery>, 'from' | 'to' | 'granularity'>): string {
  const stamp = (moment: string) => isoInZone(moment, 'utc').replaceAll(':', '-')
  return `animal-store-usage-${stamp(query.from)}-${stamp(query.to)}-${query.granularity}.ndjson`
}
