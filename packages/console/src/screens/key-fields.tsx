import type { Customer } from '@animal-store/contract'
import { useId } from 'preact/hooks'
import { CustomerPicker } from '../customers/customer-picker.tsx'
import { withScope, type KeyFormValues } from '../keys/form-values.ts'
import { count, SCOPE_NAMES, scopeHint } from '../labels.ts'
import { PlanSelect } from '../components/plan-select.tsx'
import { isCustomPlan, usePlanList } from '../plans/context.ts'
import type { Zone } from '../time.ts'
import { LimitField } from '../components/limit-field.tsx'

interface KeyFieldsProps {
  values: KeyFormValues
  onChange: (values: KeyFormValues) => void
  zone: Zone
  mode: 'create' | 'edit'
  /** On create, the customer chosen at first (the dialog opened from its page). */
  preset?: Customer | undefined
  /** On edit, the monthly quota of the key's customer: keys cannot change it, so the hint says where it is set. */
  perMonth?: number | null
}

/**
 * Customer (on create only: a key never changes customer), Plan (the plans of listPlans, by
 * name), Name, Per minute, Per day, the scopes' check boxes, Expires at. A key for a customer
 * takes its plan and numbers: Plan, Per minute and Per day are then not shown.
 */
export function KeyFields({ values, onChange, zone, mode, preset, perMonth = null }: KeyFieldsProps) {
  const id = useId()
  const set = (field: keyof KeyFormValues) => (event: Event) =>
    onChange({ ...values, [field]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value })
  const plans = usePlanList()
  const custom = isCustomPlan(plans, values.plan)
  // A customer brings its plan and numbers: only a key with a customer of its own (or an edit, which changes its customer's) shows them.
  const planFields = mode === 'edit' || values.customerId === ''
  return (
    <div class="fields">
      {mode === 'create' && (
        <CustomerPicker id={id} value={values.customerId} onChange={(customerId) => onChange({ ...values, customerId })} preset={preset} />
      )}
      {planFields && <PlanSelect id={`${id}-plan`} value={values.plan} plans={plans} onChange={(plan) => onChange({ ...values, plan })} />}
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={values.name} onInput={set('name')} maxLength={200} autocomplete="off" />
      {planFields && (
        <>
          <LimitField
            id={`${id}-minute`}
            label="Per minute"
            value={values.perMinute}
            onInput={set('perMinute')}
            required={custom}
            hint={`${id}-limits`}
          />
          <LimitField
            id={`${id}-day`}
            label="Per day"
            value={values.perDay}
            onInput={set('perDay')}
            required={custom}
            hint={`${id}-limits`}
          />
          <p class="hint" id={`${id}-limits`}>
            {custom
              ? 'Keys on a custom plan need both numbers.'
              : mode === 'create'
                ? "Empty: the plan's numbers."
                : "They are the key's customer's, shared by all its keys. A new plan brings its own numbers, unless these are changed too."}
            {perMonth !== null && ` The customer's monthly quota, ${count(perMonth)} a month, is set on the customer's page.`}
          </p>
        </>
      )}
      <ScopeFields id={`${id}-scopes`} values={values} onChange={onChange} mode={mode} />
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

/** "Scopes": a check box per scope, named as the API names it (`pets:read`), with what it allows. */
function ScopeFields({ id, values, onChange, mode }: Omit<KeyFieldsProps, 'zone'> & { id: string }) {
  return (
    <fieldset class="scopes" aria-describedby={`${id}-hint`}>
      <legend>Scopes</legend>
      {SCOPE_NAMES.map((scope) => (
        <div class="scope" key={scope}>
          <label class="check">
            <input
              type="checkbox"
              checked={values.scopes.includes(scope)}
              onChange={(event) => onChange(withScope(values, scope, event.currentTarget.checked))}
              aria-describedby={`${id}-${scope}`}
            />
            {scope}
          </label>
          <span class="hint" id={`${id}-${scope}`}>
            {scopeHint(scope)}
          </span>
        </div>
      ))}
      <p class="hint" id={`${id}-hint`}>
        {values.scopes.length === 0
          ? 'Neither: the key can only read its own rate limit and usage.'
          : mode === 'edit'
            ? 'A change applies on every instance within 5 seconds.'
            : 'A call outside its scopes is refused (403).'}
      </p>
    </fieldset>
  )
}
