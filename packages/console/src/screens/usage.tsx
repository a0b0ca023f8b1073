import type { TopKey } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { ExportCsv } from '../components/export-csv.tsx'
import { KeyCells } from '../components/key-cells.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { RangePicker } from '../components/usage/range-picker.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { TableFrame } from '../components/table-parts.tsx'
import { UsageChart } from '../components/usage/chart.tsx'
import { ExportUsage } from '../components/usage/export-usage.tsx'
import { useAction } from '../hooks/use-action.ts'
import { useApiData } from '../hooks/use-api-data.ts'
import { count } from '../labels.ts'
import { useSession } from '../session.ts'
import { DEFAULT_RANGE, rangeBounds, rangeQuery } from '../usage-range.ts'

type Order = 'allowed' | 'refused'
const ORDERS: readonly { order: Order; label: string }[] = [
  { order: 'allowed', label: 'By allowed' },
  { order: 'refused', label: 'By refused' }
]

/** Usage of every key over a range, and the keys with the most allowed or refused requests in it. */
export function UsageScreen() {
  const { api } = useSession()
  const [range, setRange] = useState(DEFAULT_RANGE)
  const [order, setOrder] = useState<Order>('allowed')
  const exporting = useAction()
  const usage = useApiData((signal) => api.usage(rangeQuery(range, Date.now()), signal), [range])
  const top = useApiData((signal) => api.topKeys({ ...rangeBounds(range, Date.now()), by: order, limit: 10 }, signal), [range, order])

  const exportTop = async () => {
    const all = await api.topKeys({ ...rangeBounds(range, Date.now()), by: order, limit: 100 })
    return {
      header: ['Name', 'ID', 'Plan', 'Allowed', 'Rate limited', 'Banned', 'Quota exceeded'],
      rows: all.map((row) => [row.key.name, row.key.id, row.key.plan, row.allowed, row.rateLimited, row.banned, row.quotaExceeded])
    }
  }

  return (
    <>
      <ScreenHeading>Usage</ScreenHeading>
      <div class="toolbar">
        <RangePicker value={range} onChange={setRange} />
        <ExportUsage range={range} action={exporting} />
      </div>
      <ErrorAlert message={exporting.error} />
      <ErrorAlert message={usage.error} />
      <UsageChart
        title="Usage of all keys"
        buckets={usage.data}
        granularity={range.granularity}
        rangeLabel={range.label}
        exportName="usage"
      />
      <section aria-labelledby="top-keys">
        <h2 id="top-keys">Top keys</h2>
        <div class="toolbar">
          <div role="group" aria-label="Order of top keys" class="segmented">
            {ORDERS.map((choice) => (
              <button key={choice.order} type="button" aria-pressed={choice.order === order} onClick={() => setOrder(choice.order)}>
                {choice.label}
              </button>
            ))}
          </div>
          <ExportCsv name={`top-keys-by-${order}`} load={exportTop} />
        </div>
        <ErrorAlert message={top.error} />
        <TableFrame label="Top keys" busy={top.loading}>
          <TopKeysTable rows={top.data ?? []} />
        </TableFrame>
        {top.data === undefined && top.error === null && <Status>Loading top keys…</Status>}
        {top.data?.length === 0 && <Status>No key made a request in this range.</Status>}
      </section>
    </>
  )
}

function TopKeysTable({ rows }: { rows: readonly TopKey[] }) {
  return (
    <table>
      <caption class="visually-hidden">Top keys</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">ID</th>
          <th scope="col">Plan</th>
          <th scope="col">Allowed</th>
          <th scope="col">Rate limited</th>
          <th scope="col">Banned</th>
          <th scope="col">Quota exceeded</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key.id}>
            <KeyCells keyData={row.key} />
            <td class="number">{count(row.allowed)}</td>
            <td class="number">{count(row.rateLimited)}</td>
            <td class="number">{count(row.banned)}</td>
            <td class="number">{count(row.quotaExceeded)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
