import Type, { type Static } from 'typebox'
import { PLAN_ID_PATTERN } from './admin/plans/schemas.ts'

/** A pair of limits: requests per UTC minute and per UTC day. */
export interface Limits {
  perMinute: number
  perDay: number
}

/** What a request without a key may make, per client address: SPEC.md's Free numbers, whatever the free plan becomes. */
export const ANONYMOUS_LIMITS: Limits = { perMinute: 60, perDay: 1_000 }

export const RateLimitWindowName = Type.Enum(['minute', 'day'], { description: 'The window: a UTC-aligned minute or day' })

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
      maxItems: 2,
      description: 'The per-minute window, then the per-day window'
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
      }
    ]
  }
)
export type RateLimitStatus = Static<typeof RateLimitStatus>
