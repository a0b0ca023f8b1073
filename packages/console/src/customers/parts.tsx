import type { Customer } from '@animal-store/contract'
import { Time } from '../components/time.tsx'

/** Whether the customer's keys are refused now for its ban (a ban ended is no ban). */
export function isBanned(customer: Pick<Customer, 'bannedUntil'>, now: number): boolean {
  return customer.bannedUntil !== null && Date.parse(customer.bannedUntil) > now
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
