/** A customer's use of its windows at some moment, and its ban: shared by all its keys. */
export interface WindowUsage {
  minuteUsed: number
  dayUsed: number
  /** Requests taken in the calendar month; counted only for a customer with a monthly quota (else 0). */
  monthUsed: number
  bannedUntil: number | null
}

/** What the rate limiter knows of a customer's counters (subject `key:<counterId>`), for administration. */
export interface CustomerCounters {
  usage(counterId: string, now: number): Promise<WindowUsage>
  unban(counterId: string, now: number): Promise<void>
  /** Every customer's counters banned at `now`, in no order. */
  bans(now: number): Promise<Array<{ counterId: string; bannedUntil: number }>>
}

/** Counters never used: what a new customer's view shows, without asking them. */
export const NO_USAGE: WindowUsage = { minuteUsed: 0, dayUsed: 0, monthUsed: 0, bannedUntil: null }
