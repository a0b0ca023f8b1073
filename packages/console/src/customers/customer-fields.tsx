import { useId } from 'preact/hooks'
import { LimitField } from '../components/limit-field.tsx'
import { PlanSelect } from '../components/plan-select.tsx'
import { isCustomPlan, usePlanList } from '../plans/context.ts'
import type { CustomerFormValues } from './form-values.ts'

interface CustomerFieldsProps {
  values: CustomerFormValues
  onChange: (values: CustomerFormValues) => void
  mode: 'create' | 'edit'
}

/** Name, Plan (the plans of listPlans, by name), External ID, Per minute, Per day, Per month. */
export function CustomerFields({ values, onChange, mode }: CustomerFieldsProps) {
  const id = useId()
  const set = (field: keyof CustomerFormValues) => (event: Event) =>
    onChange({ ...values, [field]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value })
  const plans = usePlanList()
  const custom = isCustomPlan(plans, values.plan)
  return (
    <div class="fields">
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} value={values.name} onInput={set('name')} required maxLength={200} autocomplete="off" />
      <PlanSelect id={`${id}-plan`} value={values.plan} plans={plans} onChange={(plan) => onChange({ ...values, plan })} />
      <label for={`${id}-external`}>External ID</label>
      <input
        id={`${id}-external`}
        value={values.externalId}
        onInput={set('externalId')}
        maxLength={200}
        autocomplete="off"
        spellcheck={false}
        aria-describedby={`${id}-external-hint`}
      />
      <p class="hint" id={`${id}-external-hint`}>
        Your own id for the customer, as in billing (a Stripe customer id, say); unique. {mode === 'edit' ? 'Empty: none.' : 'Optional.'}
      </p>
      <LimitField
        id={`${id}-minute`}
        label="Per minute"
        value={values.perMinute}
        onInput={set('perMinute')}
        required={custom}
        max={1_000_000_000}
        hint={`${id}-limits`}
      />
      <LimitField
        id={`${id}-day`}
        label="Per day"
        value={values.perDay}
        onInput={set('perDay')}
        required={custom}
        max={1_000_000_000}
        hint={`${id}-limits`}
      />
      <p class="hint" id={`${id}-limits`}>
        {custom
          ? 'A customer on a custom plan needs both numbers, shared by all its keys.'
          : "Requests a minute and a day, shared by all the customer's keys. Both empty: the plan's numbers."}
      </p>
      {/* Read-only rather than disabled: it stays in the tab order, so its reason is heard, not only seen greyed out. */}
      <label for={`${id}-month`}>Per month</label>
      <input
        id={`${id}-month`}
        class="unavailable"
        type="text"
        value=""
        placeholder="Not available"
        readOnly
        aria-disabled="true"
        aria-describedby={`${id}-month-hint`}
      />
      <p class="hint" id={`${id}-month-hint`}>
        Monthly quotas are not available in this release: customers have none.
      </p>
    </div>
  )
}
