import type { Customer, ListCustomersQuery, Plan } from '@animal-store/contract'
import { useId, useState } from 'preact/hooks'
import { allPages } from '../api/operations.ts'
import { ExportCsv } from '../components/export-csv.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { Pager, SortableHeader, TableFrame, sortRows, usePages, useSortOrder } from '../components/table-parts.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { useDebounced } from '../hooks/timers.ts'
import { count } from '../labels.ts'
import { limitsText, usedText } from '../limits.ts'
import { PlanSelect } from '../components/plan-select.tsx'
import { planLabel, usePlanList } from '../plans/context.ts'
import { customerHref } from '../routes.ts'
import { useSession, useView } from '../session.ts'
import { isoInZone, type Zone } from '../time.ts'
import { CreateCustomerDialog } from './customer-dialogs.tsx'
import { CustomerState, isBanned } from './parts.tsx'

type Column = 'name' | 'id' | 'externalId' | 'plan' | 'limits' | 'used' | 'keys' | 'state'
const COLUMNS: readonly { column: Column; label: string }[] = [
  { column: 'name', label: 'Name' },
  { column: 'id', label: 'ID' },
  { column: 'externalId', label: 'External ID' },
  { column: 'plan', label: 'Plan' },
  { column: 'limits', label: 'Limits' },
  { column: 'used', label: 'Used' },
  { column: 'keys', label: 'Keys' },
  { column: 'state', label: 'State' }
]

const sortValue = (now: number, plans: readonly Plan[]): Record<Column, (customer: Customer) => string | number> => ({
  name: (customer) => customer.name.toLowerCase(),
  id: (customer) => customer.id,
  externalId: (customer) => customer.externalId ?? '',
  plan: (customer) => planLabel(plans, customer.plan).toLowerCase(),
  limits: (customer) => customer.limits.perMinute * 1e9 + customer.limits.perDay,
  used: (customer) => customer.usage.day,
  keys: (customer) => customer.keys,
  state: (customer) => (isBanned(customer, now) ? Date.parse(customer.bannedUntil ?? '') : 0)
})

const CSV_HEADER = ['Name', 'ID', 'External ID', 'Plan', 'Own limits', 'Per minute', 'Per day', 'Used this minute', 'Used today']
// The month's columns come last, so the columns a spreadsheet already reads keep their places.
const CSV_TAIL = ['Keys', 'Created', 'Banned until', 'Per month', 'Used this month']

/** The customers, newest first, found by id, name or external ID and by plan; for admins, "Create customer". */
export function CustomersScreen() {
  const { api, canWrite } = useSession()
  const { refresh } = useView()
  const ids = useId()
  const plans = usePlanList()
  const [search, setSearch] = useState('')
  const [plan, setPlan] = useState('')
  const [creating, setCreating] = useState(false)
  const [done, setDone] = useState('')
  const settledSearch = useDebounced(search.trim(), 300)
  const [order, sortBy] = useSortOrder<Column>()
  const filters: ListCustomersQuery = { search: settledSearch, ...(plan === '' ? {} : { plan }) }
  const filterKey = JSON.stringify(filters)
  const pages = usePages(filterKey)
  const customers = useApiData((signal) => api.listCustomers({ ...filters, cursor: pages.cursor }, signal), [filterKey, pages.cursor])
  const now = Date.now()
  const rows = sortRows(customers.data?.items ?? [], order, sortValue(now, plans))

  const exportCustomers = async (zone: Zone) => {
    const all = await allPages((cursor) => api.listCustomers({ ...filters, limit: 100, cursor }))
    return {
      header: [...CSV_HEADER, ...CSV_TAIL],
      rows: sortRows(all, order, sortValue(Date.now(), plans)).map((customer) => [
        customer.name,
        customer.id,
        customer.externalId,
        customer.plan,
        customer.ownLimits ? 'yes' : 'no',
        customer.limits.perMinute,
        customer.limits.perDay,
        customer.usage.minute,
        customer.usage.day,
        customer.keys,
        isoInZone(customer.createdAt, zone),
        customer.bannedUntil === null ? null : isoInZone(customer.bannedUntil, zone),
        customer.limits.perMonth,
        // Without a monthly quota the month is not counted: empty, not a misleading 0.
        customer.limits.perMonth === null ? null : customer.usage.month
      ])
    }
  }

  return (
    <>
      <ScreenHeading>Customers</ScreenHeading>
      <div class="toolbar">
        <div class="filters">
          <label for={`${ids}-search`}>Search customers</label>
          <input
            id={`${ids}-search`}
            type="search"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
            aria-describedby={`${ids}-search-hint`}
          />
          <span class="visually-hidden" id={`${ids}-search-hint`}>
            By id, name or external ID
          </span>
          <PlanSelect id={`${ids}-plan`} value={plan} plans={plans} onChange={setPlan} any="All plans" />
        </div>
        <div class="actions">
          <ExportCsv name="customers" load={exportCustomers} />
          {canWrite && (
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              Create customer
            </button>
          )}
        </div>
      </div>
      <ErrorAlert message={customers.error} />
      <TableFrame label="Customers" busy={customers.loading}>
        <table>
          <caption class="visually-hidden">Customers</caption>
          <thead>
            <tr>
              {COLUMNS.map(({ column, label }) => (
                <SortableHeader key={column} column={column} label={label} order={order} onSort={sortBy} />
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((customer) => (
              <tr key={customer.id}>
                <th scope="row">
                  <a href={customerHref(customer.id)}>{customer.name}</a>
                </th>
                <td>
                  <code>{customer.id}</code>
                </td>
                <td>{customer.externalId === null ? <span class="muted">none</span> : <code>{customer.externalId}</code>}</td>
                <td>{planLabel(plans, customer.plan)}</td>
                <td>
                  {limitsText(customer.limits)}
                  {customer.ownLimits && <span class="muted"> (own)</span>}
                </td>
                <td>{usedText(customer.usage, customer.limits)}</td>
                <td class="number">{count(customer.keys)}</td>
                <td>
                  <CustomerState customer={customer} now={now} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {done !== '' && <Status>{done}</Status>}
      {customers.data === undefined && customers.error === null && <Status>Loading customers…</Status>}
      {customers.data?.items.length === 0 && <Status>No customer matches these filters.</Status>}
      <Pager
        label="Pages of customers"
        number={pages.number}
        hasNext={(customers.data?.next ?? null) !== null}
        onNext={() => customers.data?.next && pages.next(customers.data.next)}
        onPrevious={pages.previous}
      />
      {creating && (
        <CreateCustomerDialog
          onClose={() => setCreating(false)}
          onDone={(customer) => {
            setCreating(false)
            setDone(`Customer ${customer.name} created.`)
            refresh()
          }}
        />
      )}
    </>
  )
}
