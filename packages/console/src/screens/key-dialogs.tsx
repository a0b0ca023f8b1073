import type { Key, KeyWithSecret } from '@animal-store/contract'
import { useId, useState } from 'preact/hooks'
import { Dialog } from '../components/dialogs/dialog.tsx'
import { DialogActions } from '../components/dialogs/actions.tsx'
import { ErrorAlert } from '../components/notices.tsx'
import { SecretOnce } from '../components/secret-once.tsx'
import { useAction } from '../hooks/use-action.ts'
import { keyTitle } from '../keys/state.ts'
import { isCustomPlan, usePlanList } from '../plans/context.ts'
import { useSession, useView } from '../session.ts'
import { formOf, patchOf } from '../keys/form-values.ts'
import { KeyFields } from './key-fields.tsx'

interface KeyDialogProps {
  keyData: Key
  onClose: () => void
}

/** "Edit": the create fields, filled in; "Save" sends what changed. */
export function EditKeyDialog({ keyData, onClose }: KeyDialogProps) {
  const { api } = useSession()
  const { zone, refresh } = useView()
  const plans = usePlanList()
  const [values, setValues] = useState(() => formOf(keyData, zone))
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const patch = patchOf(keyData, values, zone, (plan) => isCustomPlan(plans, plan))
    if (typeof patch === 'string') return action.fail(patch)
    if ((await action.run(() => api.updateKey(keyData.id, patch))) === undefined) return
    refresh()
    onClose()
  }
  return (
    <Dialog title={`Edit ${keyTitle(keyData)}`} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <KeyFields values={values} onChange={setValues} zone={zone} mode="edit" perMonth={keyData.limits.perMonth} />
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Save" onCancel={onClose} />
      </form>
    </Dialog>
  )
}

/** "Rotate": a new secret for the key, the old one working for "Grace seconds" more; the new one shown once. */
export function RotateKeyDialog({ keyData, onClose }: KeyDialogProps) {
  const { api } = useSession()
  const { refresh } = useView()
  const graceId = useId()
  const [grace, setGrace] = useState('86400')
  const [rotated, setRotated] = useState<KeyWithSecret | null>(null)
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    if (!/^[0-9]{1,8}$/.test(grace.trim())) return action.fail('Grace seconds must be a whole number of seconds, 0 or more.')
    const key = await action.run(() => api.rotateKey(keyData.id, { graceSeconds: Number(grace.trim()) }))
    if (key === undefined) return
    setRotated(key)
    refresh()
  }
  return (
    <Dialog title={rotated === null ? `Rotate ${keyTitle(keyData)}` : `New secret of ${keyTitle(keyData)}`} onClose={onClose}>
      {rotated !== null ? (
        <SecretOnce secret={rotated.key} onDone={onClose} />
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <p>A new secret replaces the current one. The current secret keeps working for the grace period, drawing on the same quota.</p>
          <div class="fields">
            <label for={graceId}>Grace seconds</label>
            <input
              id={graceId}
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              required
              value={grace}
              onInput={(event) => setGrace(event.currentTarget.value)}
              aria-describedby={`${graceId}-hint`}
            />
            <p class="hint" id={`${graceId}-hint`}>
              86400 is a day; 0 ends the current secret at once.
            </p>
          </div>
          <ErrorAlert message={action.error} />
          <DialogActions busy={action.busy} submit="Rotate" onCancel={onClose} />
        </form>
      )}
    </Dialog>
  )
}

/** "Revoke", confirmed: the key stops working on every instance within 5 seconds, for good. */
export function RevokeKeyDialog({ keyData, onClose }: KeyDialogProps) {
  const { api } = useSession()
  const { refresh } = useView()
  const action = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    if ((await action.run(() => api.revokeKey(keyData.id))) === undefined) return
    refresh()
    onClose()
  }
  return (
    <Dialog title={`Revoke ${keyTitle(keyData)}?`} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <p>
          Requests with this key are refused within 5 seconds, on every instance. A revoked key cannot be used again: its clients need a new
          key.
        </p>
        <ErrorAlert message={action.error} />
        <DialogActions busy={action.busy} submit="Revoke" onCancel={onClose} />
      </form>
    </Dialog>
  )
}
