import type { Customer } from '@animal-store/contract'
import { Time } from '../components/time.tsx'
import { count } from '../labels.ts'

/** Whether the customer's keys are refused now for its ban (a ban ended is no ban). */
export function isBanned(customer: Pick<Customer, 'bannedUntil'>, now: number): boolean {
  return customer.bannedUntil !== null && Date.parse(customer.bannedUntil) > now
}

/** `300/min, 10,000/day`: a pair of limits, or of counts in those windows, as the tables show them. */
export function perWindow(pair: { perMinute: number; perDay: number } | { minute: number; day: number }): string {
  const [minute, day] = 'perMinute' in pair ? [pair.perMinute, pair.perDay] : [pair.minute, pair.day]
  return `${count(minute)}/min, ${count(day)}/day`
}

/** "Banned until …" in the chosen zone, or "Active". */
export function CustomerState({ customer, now }: { customer: Pick<Customer, 'bannedUntil'>; now: number }) {
  return isBanned(customer, now) ? (
    <>
      Banned until <Time value={customer.bannedUntil} />
    </>
  ) : (
    <>Active</>
  )
}
