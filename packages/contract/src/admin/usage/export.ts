import Type, { type Static } from 'typebox'
import { EXAMPLE_CUSTOMER } from '../examples.ts'
import { CUSTOMER_ID_PATTERN } from '../keys/schemas.ts'
import { PLAN_ID_PATTERN } from '../plans/schemas.ts'
import { operation } from '../operation.ts'
import { Count, Timestamp } from '../time.ts'

// The billing export (DESIGN.md §8): one NDJSON line per customer and closed period with any
// count, as a CloudEvents 1.0 event (OpenMeter) or a Stripe meter event body.

export const EXPORT_GRANULARITIES = ['hour', 'day'] as const
export const EXPORT_FORMATS = ['cloudevents', 'stripe'] as const
/** A period is exported once it ended this long ago: every instance has stored its counts (they flush every 10 s). */
export const EXPORT_SETTLE_MS = 15_000
export const STRIPE_EVENT_NAME = 'animal_store_requests'
export const CLOUDEVENT_TYPE = 'animal-store.usage'

const Boundary = (description: string) =>
  Type.String({
    format: 'date-time',
    maxLength: 35,
    description,
    'x-rule': 'must be an ISO 8601 date-time with Z or an offset, on a period boundary of the granularity'
  })

export const UsageExportQuery = Type.Object(
  {
    from: Boundary('The start of the first period (inclusive), on a boundary of the granularity'),
    to: Boundary('The end of the last period (exclusive), on a boundary; periods not ended 15 s before now are left out'),
    granularity: Type.Optional(
      Type.Enum(EXPORT_GRANULARITIES, { default: 'hour', description: 'The period', 'x-rule': 'must be hour or day' })
    ),
    format: Type.Optional(
      Type.Enum(EXPORT_FORMATS, {
        default: 'cloudevents',
        description: 'cloudevents: CloudEvents 1.0 JSON (OpenMeter); stripe: Stripe meter event bodies (customers with an externalId only)',
        'x-rule': 'must be cloudevents or stripe'
      })
    )
  },
  { additionalProperties: false }
)
export type UsageExportQuery = Static<typeof UsageExportQuery>

const PeriodId = Type.String({
  maxLength: 64,
  pattern: '^cus_[0-9A-Za-z]{16}/(hour|day)/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00\\.000Z$',
  description: '`<customer id>/<granularity>/<period start>`: the same for the same period, every time'
})
// An external id as operators set it: no control characters.
const ExternalIdText = (description: string) => Type.String({ maxLength: 200, pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$', description })

export const UsageCloudEvent = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    type: Type.Literal(CLOUDEVENT_TYPE),
    source: Type.String({ format: 'uri', maxLength: 2048, description: 'The service (PUBLIC_BASE_URL)' }),
    id: PeriodId,
    subject: ExternalIdText('The externalId, else the customer id'),
    time: Timestamp('The end of the period'),
    datacontenttype: Type.Literal('application/json'),
    data: Type.Object(
      {
        customerId: Type.String({ pattern: CUSTOMER_ID_PATTERN, maxLength: 20 }),
        externalId: Type.Union([ExternalIdText("The operator's own id for the customer"), Type.Null()]),
        plan: Type.String({ pattern: PLAN_ID_PATTERN, maxLength: 32 }),
        from: Timestamp('The start of the period'),
        to: Timestamp('The end of the period'),
        allowed: Count('Requests allowed'),
        rateLimited: Count('Requests refused 429 rate_limited'),
        banned: Count('Requests refused 429 api_key_banned'),
        quotaExceeded: Count('Requests refused 429 quota_exceeded: the monthly quota was spent')
      },
      { additionalProperties: false }
    )
  },
  { additionalProperties: false, description: "A customer's requests in one period, as a CloudEvent" }
)

export const UsageStripeMeterEvent = Type.Object(
  {
    event_name: Type.Literal(STRIPE_EVENT_NAME),
    timestamp: Type.Integer({ format: 'int64', minimum: 0, maximum: 253_402_300_800, description: 'The end of the period, Unix seconds' }),
    identifier: PeriodId,
    payload: Type.Object(
      {
        stripe_customer_id: ExternalIdText("The customer's externalId"),
        value: Type.String({ pattern: '^[0-9]+$', maxLength: 20, description: 'Requests allowed, as Stripe wants it: a decimal string' })
      },
      { additionalProperties: false }
    )
  },
  { additionalProperties: false, description: "A customer's allowed requests in one period, as a Stripe meter event body" }
)

const EXAMPLE_FROM = '2026-11-27T10:00:00.000Z'
const EXAMPLE_TO = '2026-11-27T11:00:00.000Z'

export const exportUsage = operation({
  operationId: 'exportUsage',
  method: 'GET',
  path: '/usage/export',
  summary: 'Export usage for billing',
  description:
    'NDJSON (`application/x-ndjson`), streamed: one line per customer and period with any count, oldest period first, then by ' +
    'customer id. Only periods that ended at least 15 seconds ago, so the same period exported twice gives byte-identical lines ' +
    "(the customer's plan and externalId as they are at export time).",
  tag: 'Usage',
  role: 'viewer',
  query: UsageExportQuery,
  success: {
    status: 200,
    description: 'One JSON value per line: a CloudEvent, or a Stripe meter event body with format=stripe',
    schema: Type.Union([UsageCloudEvent, UsageStripeMeterEvent]),
    headers: [],
    mediaType: 'application/x-ndjson'
  },
  errors: ['validation_failed'],
  examples: {
    parameters: { from: EXAMPLE_FROM, to: EXAMPLE_TO, granularity: 'hour', format: 'cloudevents' },
    success: {
      specversion: '1.0',
      type: CLOUDEVENT_TYPE,
      source: 'https://api.animal-store.example/v1',
      id: `${EXAMPLE_CUSTOMER.id}/hour/${EXAMPLE_FROM}`,
      subject: EXAMPLE_CUSTOMER.externalId,
      time: EXAMPLE_TO,
      datacontenttype: 'application/json',
      data: {
        customerId: EXAMPLE_CUSTOMER.id,
        externalId: EXAMPLE_CUSTOMER.externalId,
        plan: 'pro',
        from: EXAMPLE_FROM,
        to: EXAMPLE_TO,
        allowed: 4821,
        rateLimited: 12,
        banned: 0,
        quotaExceeded: 0
      }
    }
  }
})
