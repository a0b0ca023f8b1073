import { MAX_MONTHLY_QUOTA } from '../limits.ts'

interface LimitFieldProps {
  id: string
  label: string
  value: string
  onInput: (event: Event) => void
  required: boolean
  /** The largest number allowed (a plan's limits stop at 10^9); none when absent. */
  max?: number
  /** The id of the hint that describes both limits. */
  hint: string
}

/** A whole number of requests, at least 1: a key's or a plan's limit. */
export function LimitField({ id, label, value, onInput, required, max, hint }: LimitFieldProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={1}
        max={max}
        step={1}
        inputMode="numeric"
        required={required}
        value={value}
        onInput={onInput}
        aria-describedby={hint}
      />
    </>
  )
}

/** The monthly quota: optional, since empty means none. */
export function MonthlyQuotaField({ id, value, onInput, hint }: Pick<LimitFieldProps, 'id' | 'value' | 'onInput' | 'hint'>) {
  return <LimitField id={id} label="Per month" value={value} onInput={onInput} required={false} max={MAX_MONTHLY_QUOTA} hint={hint} />
}
