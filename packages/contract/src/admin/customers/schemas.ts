import Type, { type Static } from 'typebox'
import { DOCUMENTED_ONLY } from '../../json-schema.ts'
import { CUSTOMER_ID_PATTERN, KEY_NAME_MAX_LENGTH, KeyLimits } from '../keys/schemas.ts'
import { AdminPageLimit, PageCursor } from '../paging.ts'
import { MAX_MONTHLY_QUOTA, MAX_PLAN_LIMIT, PlanId, PlanLimits } from '../plans/schemas.ts'
import { Count, NullableTimestamp, Timestamp } from '../time.ts'

export const CUSTOMER_NAME_MAX_LENGTH = KEY_NAME_MAX_LENGTH
export const EXTERNAL_ID_MAX_LENGTH = 200

const NO_CONTROL = '^[^\\x00-\\x1F\\x7F-\\x9F]*$'
const NAME_RULE = `must be 1 to ${CUSTOMER_NAME_MAX_LENGTH} characters with no control characters`
const EXTERNAL_ID_RULE = `must be 1 to ${EXTERNAL_ID_MAX_LENGTH} characters with no control characters`

const CustomerName = (description: string) =>
  Type.String({ minLength: 1, maxLength: CUSTOMER_NAME_MAX_LENGTH, pattern: NO_CONTROL, description, 'x-rule': NAME_RULE })
const ExternalId = (description: string) =>
  Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX_LENGTH, pattern: NO_CONTROL, description, 'x-rule': EXTERNAL_ID_RULE })

export const CustomerId = (description: string) => Type.String({ pattern: CUSTOMER_ID_PATTERN, maxLength: 20, description })

/** A customer: who holds keys, and whose limits, windows and ban all its keys share. */
export const Customer = Type.Object(
  {
    id: CustomerId("The customer's id"),
    name: CustomerName('A name for people'),
    externalId: Type.Union([ExternalId("The operator's own id for the customer, e.g. in billing"), Type.Null()], {
      description: "The operator's own id for the customer (unique), e.g. in billing; null when none was given"
    }),
    plan: PlanId("The customer's plan"),
    limits: Type.Object(KeyLimits.properties, {
      additionalProperties: false,
      description: "The limits in force, shared by all the customer's keys: its own numbers where it has them, else its plan's"
    }),
    ownLimits: Type.Boolean({ description: "True when the customer carries numbers of its own instead of its plan's" }),
    keys: Count('How many of its keys are not revoked'),
    createdAt: Timestamp('When the customer was created'),
    bannedUntil: NullableTimestamp("When the ban of all the customer's keys ends; null: not banned"),
    usage: Type.Object(
      {
        minute: Count('Requests taken in the current UTC minute'),
        day: Count('Requests taken in the current UTC day'),
        month: Count('Requests taken in the current UTC calendar month (0 without a monthly quota: the month is not counted)')
      },
      { additionalProperties: false, description: "Requests taken in the current windows, by all the customer's keys" }
    )
  },
  { additionalProperties: false, description: 'A customer and the limits its keys share' }
)
export type Customer = Static<typeof Customer>

export const Customers = Type.Array(Customer, { maxItems: 100, description: 'A page of customers, newest first, with no envelope' })

const OWN_LIMITS_RULE = `must be {perMinute, perDay[, perMonth]} with whole numbers from 1 to ${MAX_PLAN_LIMIT} (perMonth up to ${MAX_MONTHLY_QUOTA}, or null for no monthly quota)`

/** `limits` as a request gives them: `perMonth` may be left out or null (no monthly quota, not the plan's). */
const OwnLimits = Type.Object(
  {
    perMinute: PlanLimits.properties.perMinute,
    perDay: PlanLimits.properties.perDay,
    perMonth: Type.Optional(PlanLimits.properties.perMonth)
  },
  {
    additionalProperties: false,
    description: "The customer's own numbers, instead of its plan's, and its own monthly quota (none when left out or null)",
    'x-rule': OWN_LIMITS_RULE
  }
)

export const NewCustomer = Type.Object(
  {
    name: CustomerName('A name for people'),
    plan: PlanId("The plan's id (`listPlans`)"),
    externalId: Type.Optional(ExternalId("The operator's own id for the customer (unique), e.g. in billing")),
    limits: Type.Optional(OwnLimits)
  },
  { additionalProperties: false, description: 'A customer to create; `limits` is required on a custom plan' }
)
export type NewCustomer = Static<typeof NewCustomer>

export const CustomerPatch = Type.Object(
  {
    name: Type.Optional(CustomerName('A name for people')),
    plan: Type.Optional(PlanId("A new plan: the customer's own numbers are dropped unless given again")),
    externalId: Type.Optional(
      Type.Union([ExternalId("The operator's own id for the customer"), Type.Null()], {
        description: "The operator's own id for the customer (unique); null removes it",
        'x-rule': `${EXTERNAL_ID_RULE}, or null`
      })
    ),
    limits: Type.Optional(
      Type.Union([OwnLimits, Type.Null()], {
        description: "The customer's own numbers; null: its plan's",
        'x-rule': `${OWN_LIMITS_RULE}, or null for the plan's`
      })
    )
  },
  {
    additionalProperties: false,
    description: 'Changes to a customer; at least one field. Every key of the customer runs under them within 5 seconds, counts kept'
  }
)
export type CustomerPatch = Static<typeof CustomerPatch>

export const CustomerIdParams = Type.Object({
  id: Type.String({
    description: "The customer's id",
    // Documented, not enforced: an id of any other shape names no customer, and is answered 404.
    [DOCUMENTED_ONLY]: { pattern: CUSTOMER_ID_PATTERN, maxLength: 20 }
  })
})

export const ListCustomersQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: CUSTOMER_NAME_MAX_LENGTH,
        pattern: NO_CONTROL,
        description: 'Only customers whose id, name or external id contains this text, in any case',
        'x-rule': `must be at most ${CUSTOMER_NAME_MAX_LENGTH} characters with no control characters`
      })
    ),
    plan: Type.Optional(PlanId('Only customers on this plan')),
    limit: Type.Optional(AdminPageLimit),
    cursor: Type.Optional(PageCursor)
  },
  { additionalProperties: false }
)
export type ListCustomersQuery = Static<typeof ListCustomersQuery>
