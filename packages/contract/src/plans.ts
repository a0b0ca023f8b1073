/**
 * The plans of SPEC.md §8, which a new database is seeded with; after that plans are data
 * (`listPlans`). Enterprise is custom: each key on it carries its own numbers.
 */
export const SEED_PLANS = [
  { id: 'free', name: 'Free', limits: { perMinute: 60, perDay: 1_000 } },
  { id: 'pro', name: 'Pro', limits: { perMinute: 300, perDay: 10_000 } },
  { id: 'business', name: 'Business', limits: { perMinute: 1_000, perDay: 100_000 } },
  { id: 'enterprise', name: 'Enterprise', limits: null }
] as const

export interface Limits {
  perMinute: number
  perDay: number
}

/** What a request without a key may make, per client address: SPEC.md's Free numbers, whatever the free plan becomes. */
export const ANONYMOUS_LIMITS: Limits = { perMinute: 60, perDay: 1_000 }
