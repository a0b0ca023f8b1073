import type { UsageCounts } from './types.ts'

/** No request of any outcome: an empty bucket. */
export const NO_COUNTS: UsageCounts = Object.freeze({ allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 })

/**
 * The counts by outcome alone, as a plain object, out of a row that carries more (a key id, a
 * start) or has a null prototype (node:sqlite's): one place names every outcome.
 */
export const countsOf = ({ allowed, rateLimited, banned, quotaExceeded }: UsageCounts): UsageCounts => ({
  allowed,
  rateLimited,
  banned,
  quotaExceeded
})
