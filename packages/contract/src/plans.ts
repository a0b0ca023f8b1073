/** The plans of SPEC.md §8. Enterprise numbers are set per key. */
export const PLANS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: null
} as const

export type PlanName = keyof typeof PLANS
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[]

export interface Limits {
  perMinute: number
  perDay: number
}

export function isPlanName(value: string): value is PlanName {
  return Object.hasOwn(PLANS, value)
}
