import { PLANS, type Limits } from '@animal-store/contract'
import type { ApiKeyRecord } from '../../storage/keys/types.ts'

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

/** The limits a key runs under: its own numbers where it has them, else its plan's. */
export function limitsOf(key: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): Limits {
  const plan = PLANS[key.plan]
  const perMinute = key.perMinute ?? plan?.perMinute
  const perDay = key.perDay ?? plan?.perDay
  if (perMinute === undefined || perDay === undefined) throw new Error(`key on plan ${key.plan} has no limits`)
  return { perMinute, perDay }
}

/** A key never used: what a new key's view shows, without asking the counters. */
export const NO_USAGE: KeyUsage = { minuteUsed: 0, dayUsed: 0, bannedUntil: null }
