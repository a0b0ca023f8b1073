// Limits as the forms take them and the screens show them, shared by plans, customers and keys.
// The contract's bounds (admin/plans/schemas.ts) are repeated: its run-time values would pull
// TypeBox into the page. A unit test checks they agree.
import { count } from './labels.ts'

export const MAX_LIMIT = 1_000_000_000
export const MAX_MONTHLY_QUOTA = 1_000_000_000_000

export type Problem = { error: string }

interface Limits {
  perMinute: number
  perDay: number
  perMonth: number | null
}

/** Per month as typed: empty is no monthly quota (null), else a whole number from 1 to 10^12. */
export function monthlyQuotaOf(typed: string): number | null | Problem {
  const text = typed.trim()
  if (text === '') return null
  // 13 digits at most: Number() is exact that far, and 10^12 is the most allowed.
  const value = /^[0-9]{1,13}$/.test(text) ? Number(text) : Number.NaN
  if (value >= 1 && value <= MAX_MONTHLY_QUOTA) return value
  return { error: `Per month must be a whole number from 1 to ${count(MAX_MONTHLY_QUOTA)}, or empty for no monthly quota.` }
}

/** `300/min, 10,000/day`, then `, 100,000/month` with a monthly quota: limits as the tables show them. */
export function limitsText(limits: Limits): string {
  const month = limits.perMonth === null ? '' : `, ${count(limits.perMonth)}/month`
  return `${count(limits.perMinute)}/min, ${count(limits.perDay)}/day${month}`
}

/**
 * The counts in the windows of `limits`, as the tables show them. The month only with a monthly
 * quota: without one the month is not counted (the API answers 0), and a 0 would mislead.
 */
export function usedText(usage: { minute: number; day: number; month?: number }, limits: Limits): string {
  const month = limits.perMonth === null || usage.month === undefined ? '' : `, ${count(usage.month)}/month`
  return `${count(usage.minute)}/min, ${count(usage.day)}/day${month}`
}

/** `300 a minute, 10,000 a day`, then `, 100,000 a month` with a monthly quota: limits as the pages say them. */
export function limitsInWords(limits: Limits): string {
  const month = limits.perMonth === null ? '' : `, ${count(limits.perMonth)} a month`
  return `${count(limits.perMinute)} a minute, ${count(limits.perDay)} a day${month}`
}
