import { useView } from '../session.ts'
import { displayTime } from '../time.ts'

/** A moment in the zone the operator chose, machine-readable in `datetime`; `fallback` when there is none. */
export function Time({ value, fallback = '—' }: { value: string | null; fallback?: string }) {
  const { zone } = useView()
  return value === null ? <>{fallback}</> : <time dateTime={value}>{displayTime(value, zone)}</time>
}
