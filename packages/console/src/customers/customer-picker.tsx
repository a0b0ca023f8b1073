import type { Customer } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { ErrorAlert } from '../components/notices.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { useDebounced } from '../hooks/timers.ts'
import { limitsText } from '../limits.ts'
import { planLabel, usePlanList } from '../plans/context.ts'
import { useSession } from '../session.ts'

interface CustomerPickerProps {
  id: string
  /** The chosen customer's id; empty: a customer of the key's own. */
  value: string
  onChange: (customerId: string) => void
  /** The customer the dialog was opened for (its page), chosen even when not among those listed. */
  preset: Customer | undefined
}

// The newest customers fill the select; beyond one page, "Find a customer" asks the API for others.
const LISTED = 100

/** The key dialog's "Customer": a select of customers, "None" making the key a customer of its own on the Plan below. */
export function CustomerPicker({ id, value, onChange, preset }: CustomerPickerProps) {
  const { api } = useSession()
  const plans = usePlanList()
  const [search, setSearch] = useState('')
  const [chosen, setChosen] = useState<Customer | undefined>(preset)
  const settled = useDebounced(search.trim(), 300)
  const list = useApiData((signal) => api.listCustomers({ search: settled, limit: LISTED }, signal), [settled])
  const listed = list.data?.items ?? []
  const options = chosen === undefined || listed.some((customer) => customer.id === chosen.id) ? listed : [chosen, ...listed]
  const current = value === '' ? undefined : options.find((customer) => customer.id === value)
  const choose = (customerId: string) => {
    setChosen(options.find((customer) => customer.id === customerId))
    onChange(customerId)
  }
  return (
    <>
      <label for={`${id}-customer`}>Customer</label>
      <select
        id={`${id}-customer`}
        value={value}
        onChange={(event) => choose(event.currentTarget.value)}
        aria-describedby={`${id}-customer-hint`}
      >
        <option value="">None: a customer of its own</option>
        {options.map((customer) => (
          <option key={customer.id} value={customer.id}>
            {customer.name} ({customer.externalId ?? customer.id})
          </option>
        ))}
      </select>
      {((list.data?.next ?? null) !== null || settled !== '') && (
        <>
          <label for={`${id}-find`}>Find a customer</label>
          <input id={`${id}-find`} type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </>
      )}
      <p class="hint" id={`${id}-customer-hint`}>
        {current === undefined
          ? 'None: the key gets a customer of its own, on the plan below.'
          : `The key shares ${current.name}'s plan (${planLabel(plans, current.plan)}), limits (${limitsText(current.limits)}) and any ban with its other keys.`}
      </p>
      <ErrorAlert message={list.error} />
    </>
  )
}
