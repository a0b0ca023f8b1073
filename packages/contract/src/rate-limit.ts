import Type, { type Static } from 'typebox'
import { PLAN_ID_PATTERN } from './admin/plans/schemas.ts'

/** Requests per UTC minute and per UTC day, and per UTC calendar month (null: no monthly quota). */
export interface Limits {
  perMinute: number
  perDay: number
  perMonth: number | null
}

/** What a request without a key may make, per client address: SPEC.md's Free numbers, whatever the free plan becomes. */
export const ANONYMOUS_LIMITS: Limits = { perMinute: 60, perDay: 1_000, perMonth: null }

export const RateLimitWindowName = Type.Enum(['minute', 'day', 'month'], {
  description: 'The window: a UTC-aligned minute, day or calendar month'
})

export const RateLimitWindow = Type.Object(
  {
    window: RateLimitWindowName,
    limit: Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Requests the window allows' }),
    remaining: Type.Integer({
      format: 'int64',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Requests left in the current window'
    }),
    reset: Type.Integer({
      format: 'int64',
      minimum: 0,
      maximum: 253402300799,
      description: 'Unix time in seconds at which the current window ends'
    })
  },
  { additionalProperties: false, description: 'One rate-limit window of the key' }
)
export type RateLimitWindow = Static<typeof RateLimitWindow>

export const RateLimitStatus = Type.Object(
  {
    plan: Type.String({ pattern: PLAN_ID_PATTERN, maxLength: 32, description: "The id of the key's plan" }),
    limits: Type.Array(RateLimitWindow, {
      minItems: 2,
      maxItems: 3,
      description: 'The per-minute window, then the per-day window, then the calendar month when the customer has a monthly quota'
    }),
    bannedUntil: Type.Union([Type.Integer({ format: 'int64', minimum: 0, maximum: 253402300799 }), Type.Null()], {
      description: 'Unix time in seconds at which the temporary ban ends; null when the key is not banned'
    })
  },
  {
    additionalProperties: false,
    description: "The caller's own use of its rate limits; reading it consumes no quota",
    examples: [
      {
        plan: 'free',
        limits: [
          { window: 'minute', limit: 60, remaining: 42, reset: 1781524860 },
          { window: 'day', limit: 1000, remaining: 880, reset: 1781568000 }
        ],
        bannedUntil: null
      },
      {
        plan: 'metered',
        limits: [
          { window: 'minute', limit: 300, remaining: 300, reset: 1781524860 },
          { window: 'day', limit: 10000, remaining: 7310, reset: 1781568000 },
          { window: 'month', limit: 100000, remaining: 0, reset: 1782864000 }
        ],
        bannedUntil: null
      }
    ]
  }
)
export type RateLimitStatus = Static<typeof RateLimitStatus>
