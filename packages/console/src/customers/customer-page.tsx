import type { Customer } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { Time } from '../components/time.tsx'
import { UsageChart } from '../components/usage/chart.tsx'
import { RangePicker } from '../components/usage/range-picker.tsx'
import { useAction } from '../hooks/use-action.ts'
import { useApiData } from '../hooks/use-api-data.ts'
import { count } from '../labels.ts'
import { limitsInWords } from '../limits.ts'
import { planLabel, usePlanList } from '../plans/context.ts'
import { CreateKey } from '../screens/create-key.tsx'
import { useSession, useView } from '../session.ts'
import { DEFAULT_RANGE, rangeQuery } from '../usage-range.ts'
import { EditCustomerDialog } from './customer-dialogs.tsx'
import { CustomerKeys } from './customer-keys.tsx'
import { CustomerState, isBanned } from './parts.tsx'

/** A customer's page: its details, the usage of all its keys over time, its keys, and (for admins) what can be done to it. */
export function CustomerPage({ id }: { id: string }) {
  const { api } = useSession()
  const customer = useApiData((signal) => api.getCustomer(id, signal), [id])
  return (
    <>
      <ScreenHeading>{customer.data?.name ?? id}</ScreenHeading>
      <ErrorAlert message={customer.error} />
      {customer.data === undefined ? (
        customer.error === null && <Status>Loading the customer…</Status>
      ) : (
        <CustomerDetails customer={customer.data} />
      )}
    </>
  )
}

function CustomerDetails({ customer }: { customer: Customer }) {
  const { api, canWrite } = useSession()
  const { refresh } = useView()
  const plans = usePlanList()
  const [range, setRange] = useState(DEFAULT_RANGE)
  const [editing, setEditing] = useState(false)
  const [done, setDone] = useState('')
  const unban = useAction()
  const usage = useApiData((signal) => api.customerUsage(customer.id, rangeQuery(range, Date.now()), signal), [customer.id, range])
  const now = Date.now()

  return (
    <>
      {canWrite && (
        <div class="actions key-actions" role="group" aria-label="Customer actions">
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          {isBanned(customer, now) && (
            <button type="button" onClick={() => void unban.run(() => api.unbanCustomer(customer.id)).then(refresh)} aria-busy={unban.busy}>
              Unban
            </button>
          )}
          <CreateKey customer={customer} />
        </div>
      )}
      <ErrorAlert message={unban.error} />
      {done !== '' && <Status>{done}</Status>}
      <dl class="details">
        <dt>ID</dt>
        <dd>
          <code>{customer.id}</code>
        </dd>
        <dt>External ID</dt>
        <dd>{customer.externalId === null ? 'none' : <code>{customer.externalId}</code>}</dd>
        <dt>Plan</dt>
        <dd>{planLabel(plans, customer.plan)}</dd>
        <dt>Limits</dt>
        <dd>
          {limitsInWords(customer.limits)}
          <span class="muted">{customer.ownLimits ? " (the customer's own)" : " (the plan's)"}</span>, shared by all its keys
        </dd>
        <dt>Used</dt>
        <dd>
          {count(customer.usage.minute)} this minute, {count(customer.usage.day)} today
          {customer.limits.perMonth !== null && (
            <>
              , {count(customer.usage.month)} of {count(customer.limits.perMonth)} this month
            </>
          )}
        </dd>
        <dt>Keys</dt>
        <dd>{count(customer.keys)} not revoked</dd>
        <dt>State</dt>
        <dd>
          <CustomerState customer={customer} now={now} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={customer.createdAt} />
        </dd>
      </dl>
      <section aria-labelledby="customer-usage">
        <h2 id="customer-usage">Usage</h2>
        <RangePicker value={range} onChange={setRange} />
        <ErrorAlert message={usage.error} />
        <UsageChart
          title={`Usage of ${customer.name}`}
          buckets={usage.data}
          granularity={range.granularity}
          rangeLabel={range.label}
          exportName={`usage-${customer.id}`}
        />
      </section>
      <section aria-labelledby="customer-keys">
        <h2 id="customer-keys">Keys</h2>
        <CustomerKeys customer={customer} />
      </section>
      {editing && (
        <EditCustomerDialog
          customer={customer}
          onClose={() => setEditing(false)}
          onDone={(saved) => {
            setEditing(false)
            setDone(`Customer ${saved.name} saved.`)
            refresh()
          }}
        />
      )}
    </>
  )
}
