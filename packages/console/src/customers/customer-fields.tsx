import { useId } from 'preact/hooks'
import { LimitField, MonthlyQuotaField } from '../components/limit-field.tsx'
import { MAX_LIMIT } from '../limits.ts'
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
        max={MAX_LIMIT}
        hint={`${id}-limits`}
      />
      <LimitField
        id={`${id}-day`}
        label="Per day"
        value={values.perDay}
        onInput={set('perDay')}
        required={custom}
        max={MAX_LIMIT}
        hint={`${id}-limits`}
      />
      <MonthlyQuotaField id={`${id}-month`} value={values.perMonth} onInput={set('perMonth')} hint={`${id}-limits`} />
      <p class="hint" id={`${id}-limits`}>
        {custom
          ? 'A customer on a custom plan needs Per minute and Per day, shared by all its keys. Per month counts a calendar month from 00:00 UTC on the 1st; empty: no monthly quota.'
          : "Requests a minute, a day and a calendar month (from 00:00 UTC on the 1st), shared by all the customer's keys. All empty: the plan's numbers; only Per month empty: no monthly quota."}
      </p>
    </div>
  )
}
