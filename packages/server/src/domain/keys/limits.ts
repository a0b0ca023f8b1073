/** A key's use of its windows at some moment, and its ban. */
export interface KeyUsage {
  minuteUsed: number
  dayUsed: number
  bannedUntil: number | null
}

/** What the rate limiter knows of a key, for the key service. */
export interface KeyLimitState {
  usage(keyId: string, now: number): Promise<KeyUsage>
  unban(keyId: string, now: number): Promise<void>
  /** Every key banned at `now`, in no order. */
  bans(now: number): Promise<Array<{ keyId: string; bannedUntil: number }>>
}

/** A key never used: what a new key's view shows, without asking the counters. */
export const NO_USAGE: KeyUsage = { minuteUsed: 0, dayUsed: 0, bannedUntil: null }
