import Type, { type Static } from 'typebox'
import { Customer } from '../customers/schemas.ts'
import { Key } from '../keys/schemas.ts'
import { Count, Timestamp } from '../time.ts'

export const GRANULARITIES = ['minute', 'hour', 'day'] as const
export type Granularity = (typeof GRANULARITIES)[number]

/** How long each granularity of usage history is kept, in milliseconds. */
export const USAGE_RETENTION_MS: Record<Granularity, number> = {
  minute: 48 * 3_600_000,
  hour: 90 * 86_400_000,
  day: 400 * 86_400_000
}
export const GRANULARITY_MS: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }
/** The most buckets one usage answer holds. */
export const MAX_USAGE_BUCKETS = 3000
/** The range a usage query covers when `from` is not given: the 24 hours before `to`. */
export const DEFAULT_USAGE_RANGE_MS = 86_400_000

/** Requests by outcome in one UTC minute, hour or day. */
export const UsageBucket = Type.Object(
  {
    start: Timestamp('The start of the bucket (UTC)'),
    allowed: Count('Requests that passed the rate limiter, whatever the route then answered'),
    rateLimited: Count('Requests refused 429 rate_limited'),
    banned: Count('Requests refused 429 api_key_banned'),
    quotaExceeded: Count('Requests refused 429 quota_exceeded: the monthly quota was spent')
  },
  { additionalProperties: false, description: 'Requests by outcome in one bucket of time' }
)
export type UsageBucket = Static<typeof UsageBucket>

export const UsageBuckets = Type.Array(UsageBucket, {
  maxItems: MAX_USAGE_BUCKETS,
  description: 'Every bucket of [from, to), oldest first, empty ones included'
})

const From = Timestamp('The start of the range (inclusive); 24 hours before `to` when omitted')
const To = Timestamp('The end of the range (exclusive); now when omitted')

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(From),
    to: Type.Optional(To),
    granularity: Type.Optional(
      Type.Enum(GRANULARITIES, {
        description: 'The bucket size; when omitted, the finest one kept for the whole range that needs at most 3,000 buckets',
        'x-rule': `must be one of ${GRANULARITIES.join(', ')}`
      })
    )
  },
  { additionalProperties: false }
)
export type UsageQuery = Static<typeof UsageQuery>

export const TOP_KEYS_ORDERS = ['allowed', 'refused'] as const
export const TOP_GROUPS = ['key', 'customer'] as const
export const TOP_KEYS_LIMIT_DEFAULT = 10

export const TopKeysQuery = Type.Object(
  {
    from: Type.Optional(From),
    to: Type.Optional(To),
    by: Type.Optional(
      Type.Enum(TOP_KEYS_ORDERS, {
        default: 'allowed',
        description: 'Order by allowed requests, or by refused ones (rate limited, banned and quota exceeded together)',
        'x-rule': `must be one of ${TOP_KEYS_ORDERS.join(', ')}`
      })
    ),
    group: Type.Optional(
      Type.Enum(TOP_GROUPS, {
        default: 'key',
        description: "Rank keys, or customers (each with all its keys' requests summed)",
        'x-rule': `must be one of ${TOP_GROUPS.join(', ')}`
      })
    ),
    limit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 1,
        maximum: 100,
        default: TOP_KEYS_LIMIT_DEFAULT,
        description: 'How many keys or customers: a plain decimal integer from 1 to 100',
        'x-rule': 'must be a plain decimal integer from 1 to 100'
      })
    )
  },
  { additionalProperties: false }
)
export type TopKeysQuery = Static<typeof TopKeysQuery>

export const TopKey = Type.Object(
  {
    key: Key,
    allowed: Count('Requests allowed in the range'),
    rateLimited: Count('Requests refused 429 rate_limited in the range'),
    banned: Count('Requests refused 429 api_key_banned in the range'),
    quotaExceeded: Count('Requests refused 429 quota_exceeded in the range')
  },
  { additionalProperties: false, description: 'A key and its requests by outcome over the range' }
)
export type TopKey = Static<typeof TopKey>

export const TopKeys = Type.Array(TopKey, { maxItems: 100, description: 'Keys with the most requests first; keys with none are left out' })

export const TopCustomer = Type.Object(
  {
    customer: Customer,
    allowed: TopKey.properties.allowed,
    rateLimited: TopKey.properties.rateLimited,
    banned: TopKey.properties.banned,
    quotaExceeded: TopKey.properties.quotaExceeded
  },
  { additionalProperties: false, description: "A customer and its keys' requests by outcome over the range" }
)
export type TopCustomer = Static<typeof TopCustomer>

export const TopCustomers = Type.Array(TopCustomer, {
  maxItems: 100,
  description: 'Customers with the most requests first; customers with none are left out'
})

/** listTopKeys' answer: keys, or customers with `group=customer`. */
export const TopKeysOrCustomers = Type.Union([TopKeys, TopCustomers], {
  description: 'With group=key (the default) TopKey[]; with group=customer TopCustomer[]'
})
