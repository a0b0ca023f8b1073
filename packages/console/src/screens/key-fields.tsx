import { useId } from 'preact/hooks'
import type { KeyFormValues } from '../key-form-values.ts'
import { PLAN_LABELS, PLANS } from '../labels.ts'
import type { Zone } from '../time.ts'

interface KeyFieldsProps {
  values: KeyFormValues
  onChange: (values: KeyFormValues) => void
  zone: Zone
  mode: 'create' | 'edit'
}

/** Plan, Name, Per minute, Per day, Expires at. */
export function KeyFields({ values, onChange, zone, mode }: KeyFieldsProps) {
  const id = useId()
  const set = (field: keyof KeyFormValues) => (event: Event) =>
    onChange({ ...values, [field]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value })
  const enterprise = values.plan === 'enterprise'
  return (
    <div class="fields">
      <label for={`${id}-plan`}>Plan</label>
      <select id={`${id}-plan`} value={values.plan} onChange={set('plan')}>
        {PLANS.map((plan) => (
          <option key={plan} value={plan}>
            {PLAN_LABELS[plan]}
          </option>
        ))}
      </select>
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={values.name} onInput={set('name')} maxLength={200} autocomplete="off" />
      <label for={`${id}-minute`}>Per minute</label>
      <input
        id={`${id}-minute`}
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        required={enterprise}
        value={values.perMinute}
        onInput={set('perMinute')}
        aria-describedby={`${id}-limits`}
      />
      <label for={`${id}-day`}>Per day</label>
      <input
        id={`${id}-day`}
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        required={enterprise}
        value={values.perDay}
        onInput={set('perDay')}
        aria-describedby={`${id}-limits`}
      />
      <p class="hint" id={`${id}-limits`}>
        {enterprise
          ? 'Enterprise keys need both numbers.'
          : mode === 'create'
            ? "Empty: the plan's numbers."
            : 'A new plan brings its own numbers, unless these are changed too.'}
      </p>
      <label for={`${id}-expires`}>Expires at</label>
      <input
        id={`${id}-expires`}
        type="datetime-local"
        value={values.expiresAt}
        onInput={set('expiresAt')}
        aria-describedby={`${id}-expires-hint`}
      />
      <p class="hint" id={`${id}-expires-hint`}>
        {zone === 'utc' ? 'In UTC.' : 'In local time.'} Empty: never.
      </p>
    </div>
  )
}
