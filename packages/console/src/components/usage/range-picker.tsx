import { RANGES, type UsageRange } from '../../usage-range.ts'

/** "1 hour", "24 hours", "7 days", "30 days": toggle buttons, the chosen one pressed. */
export function RangePicker({ value, onChange }: { value: UsageRange; onChange: (range: UsageRange) => void }) {
  return (
    <div role="group" aria-label="Range" class="segmented">
      {RANGES.map((range) => (
        <button key={range.label} type="button" aria-pressed={range === value} onClick={() => onChange(range)}>
          {range.label}
        </button>
      ))}
    </div>
  )
}
