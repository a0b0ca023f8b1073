import type { Key, KeyState, ListKeysQuery, Plan } from '@animal-store/contract'
import { useId, useState } from 'preact/hooks'
import { allPages } from '../api/operations.ts'
import { ExportCsv } from '../components/export-csv.tsx'
import { KeyCells } from '../components/key-cells.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { Pager, SortableHeader, TableFrame, sortRows, usePages, useSortOrder } from '../components/table-parts.tsx'
import { Time } from '../components/time.tsx'
import { useCustomerNames } from '../customers/names.ts'
import { useApiData } from '../hooks/use-api-data.ts'
import { useDebounced } from '../hooks/timers.ts'
import { keyState, keyTitle } from '../keys/state.ts'
import { count, KEY_STATES, STATE_LABELS } from '../labels.ts'
import { limitsText } from '../limits.ts'
import { PlanSelect } from '../components/plan-select.tsx'
import { planLabel, usePlanList } from '../plans/context.ts'
import { useSession } from '../session.ts'
import { isoInZone, type Zone } from '../time.ts'
import { CreateKey } from './create-key.tsx'

type Column = 'name' | 'id' | 'plan' | 'limits' | 'used' | 'lastUsed' | 'customer' | 'state'
const COLUMNS: readonly { column: Column; label: string }[] = [
  { column: 'name', label: 'Name' },
  { column: 'id', label: 'ID' },
  { column: 'plan', label: 'Plan' },
  { column: 'limits', label: 'Limits' },
  { column: 'used', label: 'Used' },
  { column: 'lastUsed', label: 'Last used' },
  // Late in the row: the columns before it keep the places §6 gave them.
  { column: 'customer', label: 'Customer' },
  { column: 'state', label: 'State' }
]

const sortValue = (
  now: number,
  plans: readonly Plan[],
  customers: ReadonlyMap<string, string>
): Record<Column, (key: Key) => string | number> => ({
  name: (key) => keyTitle(key).toLowerCase(),
  id: (key) => key.id,
  plan: (key) => planLabel(plans, key.plan).toLowerCase(),
  limits: (key) => key.limits.perMinute * 1e9 + key.limits.perDay,
  used: (key) => key.usage.day,
  lastUsed: (key) => (key.lastUsedAt === null ? 0 : Date.parse(key.lastUsedAt)),
  customer: (key) => (customers.get(key.customerId) ?? key.customerId).toLowerCase(),
  state: (key) => STATE_LABELS[keyState(key, now)]
})

const CSV_HEADER = [
  'Name',
  'ID',
  'Prefix',
  'Plan',
  'Per minute',
  'Per day',
  'Used this minute',
  'Used today',
  'Last used',
  'State',
  'Created',
  'Expires',
  'Revoked',
  'Banned until',
  'Scopes',
  'Customer ID',
  'Per month'
]

export function KeysScreen() {
  const { api, canWrite } = useSession()
  const ids = useId()
  const [search, setSearch] = useState('')
  const plans = usePlanList()
  const [plan, setPlan] = useState('')
  const [state, setState] = useState<KeyState | ''>('')
  const settledSearch = useDebounced(search.trim(), 300)
  const [order, sortBy] = useSortOrder<Column>()
  const filters: ListKeysQuery = { search: settledSearch, ...(plan === '' ? {} : { plan }), ...(state === '' ? {} : { state }) }
  const filterKey = JSON.stringify(filters)
  const pages = usePages(filterKey)
  const keys = useApiData((signal) => api.listKeys({ ...filters, cursor: pages.cursor }, signal), [filterKey, pages.cursor])
  const customers = useCustomerNames((keys.data?.items ?? []).map((key) => key.customerId))
  const now = Date.now()
  const rows = sortRows(keys.data?.items ?? [], order, sortValue(now, plans, customers))

  const exportKeys = async (zone: Zone) => {
    const all = sortRows(
      await allPages((cursor) => api.listKeys({ ...filters, limit: 100, cursor })),
      order,
      sortValue(Date.now(), plans, customers)
    )
    const at = (moment: string | null) => (moment === null ? null : isoInZone(moment, zone))
    return {
      header: CSV_HEADER,
      rows: all.map((key) => [
        key.name,
        key.id,
        key.prefix,
        key.plan,
        key.limits.perMinute,
        key.limits.perDay,
        key.usage.minute,
        key.usage.day,
        at(key.lastUsedAt),
        keyState(key, Date.now()),
        at(key.createdAt),
        at(key.expiresAt),
        at(key.revokedAt),
        at(key.bannedUntil),
        key.scopes.join(' '),
        key.customerId,
        key.limits.perMonth
      ])
    }
  }

  return (
    <>
      <ScreenHeading>Keys</ScreenHeading>
      <div class="toolbar">
        <div class="filters">
          <label for={`${ids}-search`}>Search keys</label>
          <input id={`${ids}-search`} type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
          <PlanSelect id={`${ids}-plan`} value={plan} plans={plans} onChange={setPlan} any="All plans" />
          <label for={`${ids}-state`}>State</label>
          <select id={`${ids}-state`} value={state} onChange={(event) => setState(event.currentTarget.value as KeyState | '')}>
            <option value="">All states</option>
            {KEY_STATES.map((name) => (
              <option key={name} value={name}>
                {STATE_LABELS[name]}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <ExportCsv name="keys" load={exportKeys} />
          {canWrite && <CreateKey />}
        </div>
      </div>
      <ErrorAlert message={keys.error} />
      <TableFrame label="Keys" busy={keys.loading}>
        <table>
          <caption class="visually-hidden">Keys</caption>
          <thead>
            <tr>
              {COLUMNS.map(({ column, label }) => (
                <SortableHeader key={column} column={column} label={label} order={order} onSort={sortBy} />
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((key) => (
              <tr key={key.id}>
                <KeyCells keyData={key} />
                <td>{limitsText(key.limits)}</td>
                <td>
                  {count(key.usage.minute)}/min, {count(key.usage.day)}/day
                </td>
                <td>
                  <Time value={key.lastUsedAt} fallback="never" />
                </td>
                {/* Text, not a link: a customer of the key's own bears its name, and the key's page links to it. */}
                <td>{customers.get(key.customerId) ?? <code>{key.customerId}</code>}</td>
                <td>{STATE_LABELS[keyState(key, now)]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {keys.data === undefined && keys.error === null && <Status>Loading keys…</Status>}
      {keys.data?.items.length === 0 && <Status>No key matches these filters.</Status>}
      <Pager
        label="Pages of keys"
        number={pages.number}
        hasNext={(keys.data?.next ?? null) !== null}
        onNext={() => keys.data?.next && pages.next(keys.data.next)}
        onPrevious={pages.previous}
      />
    </>
  )
}
