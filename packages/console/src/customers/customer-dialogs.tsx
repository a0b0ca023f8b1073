import type { Customer } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { Dialog } from '../components/dialogs/dialog.tsx'
import { DialogActions } from '../components/dialogs/actions.tsx'
import { ErrorAlert } from '../components/notices.tsx'
import { useAction } from '../hooks/use-action.ts'
import { isCustomPlan, starterPlan, usePlanList } from '../plans/context.ts'
import { useSession } from '../session.ts'
import { CustomerFields } from './customer-fields.tsx'
import { customerFormOf, customerPatchOf, EMPTY_CUSTOMER_FORM, newCustomerOf } from './form-values.ts'
import { rememberCustomer } from './names.ts'

interface DoneProps {
  onClose: () => void
  /** Called once the API has made the change, with the customer as it now is. */
  onDone: (customer: Customer) => void
}

/** "Create customer"'s dialog: the fields, then "Create". A taken external ID is refused with the API's message. */
export function CreateCustomerDialog({ onClose, onDone }: DoneProps) {
  const { api } = useSession()
  const plans = usePlanList()
  const [values, setValues] = useState(() => ({ ...EMPTY_CUSTOMER_FORM, plan: starterPlan(plans)?.id ?? EMPTY_CUSTOMER_FORM.plan }))
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const body = newCustomerOf(values, (plan) => isCustomPlan(plans, plan))
    if (typeof body === 'string') return action.fail(body)
    const customer = await action.run(() => api.createCustomer(body))
    if (customer === undefined) return
    rememberCustomer(api, customer)
    onDone(customer)
  }
  return (
    <Dialog title="Create customer" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <CustomerFields values={values} onChange={setValues} mode="create" />
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Create" onCancel={onClose} />
      </form>
    </Dialog>
  )
}

/** "Edit": the customer's name, plan, external ID and own numbers, filled in; "Save" sends what changed. */
export function EditCustomerDialog({ customer, onClose, onDone }: DoneProps & { customer: Customer }) {
  const { api } = useSession()
  const plans = usePlanList()
  const [values, setValues] = useState(() => customerFormOf(customer))
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const patch = customerPatchOf(customer, values, (plan) => isCustomPlan(plans, plan))
    if (typeof patch === 'string') return action.fail(patch)
    const saved = await action.run(() => api.updateCustomer(customer.id, patch))
    if (saved === undefined) return
    rememberCustomer(api, saved)
    onDone(saved)
  }
  return (
    <Dialog title={`Edit ${customer.name}`} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <p>A change applies to all the customer's keys on every instance within 5 seconds; what they have used so far is kept.</p>
        <CustomerFields values={values} onChange={setValues} mode="edit" />
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Save" onCancel={onClose} />
      </form>
    </Dialog>
  )
}
