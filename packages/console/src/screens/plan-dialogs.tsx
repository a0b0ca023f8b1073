import type { Plan } from '@animal-store/contract'
import { useId, useRef, useState } from 'preact/hooks'
import { Dialog } from '../components/dialogs/dialog.tsx'
import { DialogActions } from '../components/dialogs/actions.tsx'
import { ErrorAlert } from '../components/notices.tsx'
import { useAction } from '../hooks/use-action.ts'
import { count } from '../labels.ts'
import { MAX_LIMIT } from '../limits.ts'
import { EMPTY_PLAN_FORM, newPlanOf, planFormOf, planPatchOf, type PlanFormValues } from '../plans/form-values.ts'
import { useSession } from '../session.ts'
import { LimitField, MonthlyQuotaField } from '../components/limit-field.tsx'

interface PlanFieldsProps {
  values: PlanFormValues
  onChange: (values: PlanFormValues) => void
  mode: 'create' | 'edit'
}

/** ID (on create only: it never changes), Name, "Custom limits per key", Per minute, Per day, Per month. */
function PlanFields({ values, onChange, mode }: PlanFieldsProps) {
  const id = useId()
  const set = (field: 'id' | 'name' | 'perMinute' | 'perDay' | 'perMonth') => (event: Event) =>
    onChange({ ...values, [field]: (event.currentTarget as HTMLInputElement).value })
  return (
    <div class="fields">
      {mode === 'create' && (
        <>
          <label for={`${id}-id`}>ID</label>
          <input
            id={`${id}-id`}
            value={values.id}
            onInput={set('id')}
            required
            maxLength={32}
            autocomplete="off"
            autocapitalize="off"
            spellcheck={false}
            aria-describedby={`${id}-id-hint`}
          />
          <p class="hint" id={`${id}-id-hint`}>
            Lower-case letters, digits and hyphens, starting with a letter, as in <code>startup</code>. It never changes.
          </p>
        </>
      )}
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={values.name} onInput={set('name')} required maxLength={100} autocomplete="off" />
      <label class="check">
        <input
          type="checkbox"
          checked={values.custom}
          onChange={(event) => onChange({ ...values, custom: event.currentTarget.checked })}
          aria-describedby={`${id}-limits`}
        />
        Custom limits per key
      </label>
      {!values.custom && (
        <>
          <LimitField
            id={`${id}-minute`}
            label="Per minute"
            value={values.perMinute}
            onInput={set('perMinute')}
            required
            max={MAX_LIMIT}
            hint={`${id}-limits`}
          />
          <LimitField
            id={`${id}-day`}
            label="Per day"
            value={values.perDay}
            onInput={set('perDay')}
            required
            max={MAX_LIMIT}
            hint={`${id}-limits`}
          />
        </>
      )}
      <p class="hint" id={`${id}-limits`}>
        {values.custom
          ? 'Each key on a custom plan carries its own per-minute and per-day numbers, and monthly quota if any, as on Enterprise.'
          : 'Requests a minute and a day, shared by every key on the plan. A change reaches them all within 5 seconds.'}
      </p>
      {!values.custom && (
        <>
          <MonthlyQuotaField id={`${id}-month`} value={values.perMonth} onInput={set('perMonth')} hint={`${id}-month-hint`} />
          <p class="hint" id={`${id}-month-hint`}>
            Requests a calendar month, from 00:00 UTC on the 1st. Empty: no monthly quota.
          </p>
        </>
      )}
    </div>
  )
}

interface DoneProps {
  onClose: () => void
  /** Called once the API has made the change, with words that say so. */
  onDone: (message: string) => void
}

/** "Create plan"'s dialog: the fields, then "Create". An id in use is refused with the API's message. */
export function CreatePlanDialog({ onClose, onDone }: DoneProps) {
  const { api } = useSession()
  const [values, setValues] = useState(EMPTY_PLAN_FORM)
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const body = newPlanOf(values)
    if (typeof body === 'string') return action.fail(body)
    const plan = await action.run(() => api.createPlan(body))
    if (plan !== undefined) onDone(`Plan ${plan.name} created.`)
  }
  return (
    <Dialog title="Create plan" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <PlanFields values={values} onChange={setValues} mode="create" />
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Create" onCancel={onClose} />
      </form>
    </Dialog>
  )
}

interface PlanDialogProps extends DoneProps {
  plan: Plan
}

/** "Edit": the plan's name and limits, filled in; "Save" sends what changed. */
export function EditPlanDialog({ plan, onClose, onDone }: PlanDialogProps) {
  const { api } = useSession()
  const [values, setValues] = useState(() => planFormOf(plan))
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const patch = planPatchOf(plan, values)
    if (typeof patch === 'string') return action.fail(patch)
    const saved = await action.run(() => api.updatePlan(plan.id, patch))
    if (saved !== undefined) onDone(`Plan ${saved.name} saved.`)
  }
  return (
    <Dialog title={`Edit ${plan.name}`} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <p>
          ID <code>{plan.id}</code>, with {customers(plan.customers)} on it.
        </p>
        <PlanFields values={values} onChange={setValues} mode="edit" />
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Save" onCancel={onClose} />
      </form>
    </Dialog>
  )
}

const customers = (n: number) => `${count(n)} ${n === 1 ? 'customer' : 'customers'}`

/** "Delete", confirmed. A plan with customers on it is refused: the API's message says so. */
export function DeletePlanDialog({ plan, onClose, onDone }: PlanDialogProps) {
  const { api } = useSession()
  const action = useAction()
  // Its row, and the Delete button that opened this, go with the plan: the heading takes the keyboard.
  const returnFocus = useRef<'opener' | 'heading'>('opener')
  const submit = async (event: Event) => {
    event.preventDefault()
    if ((await action.run(() => api.deletePlan(plan.id).then(() => true))) !== true) return
    returnFocus.current = 'heading'
    onDone(`Plan ${plan.name} deleted.`)
  }
  return (
    <Dialog title={`Delete ${plan.name}?`} onClose={onClose} returnFocus={returnFocus}>
      <form onSubmit={(event) => void submit(event)}>
        <p>
          The plan <code>{plan.id}</code> goes for good. Only a plan with no customer on it can be deleted; {customers(plan.customers)}{' '}
          {plan.customers === 1 ? 'is' : 'are'} on it now.
        </p>
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Delete" onCancel={onClose} danger />
      </form>
    </Dialog>
  )
}
