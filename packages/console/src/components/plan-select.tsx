import type { Plan } from '@animal-store/contract'
import { planOptions } from '../plans/context.ts'

interface PlanSelectProps {
  id: string
  value: string
  plans: readonly Plan[]
  onChange: (plan: string) => void
  /** A first option with the value '' (a filter's "All plans"); none in a form. */
  any?: string
}

/** The "Plan" label and select: every plan by name, and the chosen id even when the list lacks it. */
export function PlanSelect({ id, value, plans, onChange, any }: PlanSelectProps) {
  return (
    <>
      <label for={id}>Plan</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {any !== undefined && <option value="">{any}</option>}
        {planOptions(plans, value).map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </>
  )
}
