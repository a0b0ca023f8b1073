import type { Customer, KeyWithSecret } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { Dialog } from '../components/dialogs/dialog.tsx'
import { ErrorAlert } from '../components/notices.tsx'
import { SecretOnce } from '../components/secret-once.tsx'
import { useAction } from '../hooks/use-action.ts'
import { keyTitle } from '../keys/state.ts'
import { starterPlan, usePlanList } from '../plans/context.ts'
import { useSession, useView } from '../session.ts'
import { EMPTY_KEY_FORM, newKeyOf } from '../keys/form-values.ts'
import { KeyFields } from './key-fields.tsx'

/** "Create key" and its dialog: the fields, then the new secret shown once until "Done". From a customer's page, for that customer. */
export function CreateKey({ customer }: { customer?: Customer }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        Create key
      </button>
      {open && <CreateKeyDialog customer={customer} onClose={() => setOpen(false)} />}
    </>
  )
}

function CreateKeyDialog({ customer, onClose }: { customer: Customer | undefined; onClose: () => void }) {
  const { api } = useSession()
  const { zone, refresh } = useView()
  const plans = usePlanList()
  const [values, setValues] = useState(() => ({
    ...EMPTY_KEY_FORM,
    customerId: customer?.id ?? '',
    plan: starterPlan(plans)?.id ?? EMPTY_KEY_FORM.plan
  }))
  const [created, setCreated] = useState<KeyWithSecret | null>(null)
  const action = useAction()

  const submit = async (event: Event) => {
    event.preventDefault()
    const body = newKeyOf(values, zone)
    if (typeof body === 'string') return action.fail(body)
    const key = await action.run(() => api.createKey(body))
    if (key === undefined) return
    setCreated(key)
    refresh()
  }

  if (created !== null) {
    return (
      <Dialog title={`Key ${keyTitle(created)} created`} onClose={onClose}>
        <SecretOnce secret={created.key} onDone={onClose} />
      </Dialog>
    )
  }
  return (
    <Dialog title="Create key" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <KeyFields values={values} onChange={setValues} zone={zone} mode="create" preset={customer} />
        <ErrorAlert message={action.error} />
        <div class="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" aria-busy={action.busy}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  )
}
