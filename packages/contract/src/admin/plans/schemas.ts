import Type, { type Static } from 'typebox'
import { DOCUMENTED_ONLY } from '../../json-schema.ts'
import { Count, Timestamp } from '../time.ts'

export const PLAN_ID_PATTERN = '^[a-z][a-z0-9-]{0,31}$'
export const PLAN_NAME_MAX_LENGTH = 100
/** The largest number a plan's per-minute or per-day limit may hold. */
export const MAX_PLAN_LIMIT = 1_000_000_000
/** The largest monthly quota. */
export const MAX_MONTHLY_QUOTA = 1_000_000_000_000

const PLAN_ID_RULE = 'must be 1 to 32 lower-case letters, digits and hyphens, starting with a letter'
const PLAN_NAME_RULE = `must be 1 to ${PLAN_NAME_MAX_LENGTH} characters with no control characters`
const LIMIT_RULE = `must be a whole number from 1 to ${MAX_PLAN_LIMIT}`
const MONTHLY_RULE = `must be a whole number from 1 to ${MAX_MONTHLY_QUOTA}, or null for no monthly quota`

/** A plan's id where a request names one: a key's plan, a filter. Unknown ids are refused by the service, not the schema. */
export const PlanId = (description: string) => Type.String({ pattern: PLAN_ID_PATTERN, maxLength: 32, description, 'x-rule': PLAN_ID_RULE })

const PlanTitle = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: PLAN_NAME_MAX_LENGTH,
    pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$',
    description,
    'x-rule': PLAN_NAME_RULE
  })

const PlanLimit = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_PLAN_LIMIT, description, 'x-rule': LIMIT_RULE })

export const PlanLimits = Type.Object(
  {
    perMinute: PlanLimit('Requests allowed per UTC minute'),
    perDay: PlanLimit('Requests allowed per UTC day'),
    perMonth: Type.Union([Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_MONTHLY_QUOTA }), Type.Null()], {
      description: 'Requests allowed per UTC calendar month (from 00:00 UTC on the 1st); null: no monthly quota',
      'x-rule': MONTHLY_RULE
    })
  },
  { additionalProperties: false, description: "The plan's limits, shared by every customer on it" }
)
export type PlanLimits = Static<typeof PlanLimits>

/** `limits` as a request gives them: `perMonth` may be left out (no monthly quota). */
const PlanLimitsInput = Type.Object(
  {
    perMinute: PlanLimits.properties.perMinute,
    perDay: PlanLimits.properties.perDay,
    perMonth: Type.Optional(PlanLimits.properties.perMonth)
  },
  { additionalProperties: false, description: 'The limits: perMinute and perDay; perMonth a monthly quota, or null or left out for none' }
)

function CustomOrLimits<Limits extends typeof PlanLimits | typeof PlanLimitsInput>(limits: Limits) {
  return Type.Union([limits, Type.Null()], {
    description: 'The limits every customer on the plan shares; null: a custom plan, whose customers each carry their own',
    'x-rule': `must be {perMinute, perDay[, perMonth]} with whole numbers from 1 to ${MAX_PLAN_LIMIT} (perMonth up to ${MAX_MONTHLY_QUOTA}, or null), or null for a custom plan`
  })
}

/** A plan: a price list's row, as data. `customers` counts what is on it (each key is, until customers have several). */
export const Plan = Type.Object(
  {
    id: PlanId("The plan's id: a slug that never changes"),
    name: PlanTitle('A name for people'),
    limits: CustomOrLimits(PlanLimits),
    customers: Count('How many customers are on the plan'),
    createdAt: Timestamp('When the plan was created')
  },
  { additionalProperties: false, description: 'A plan' }
)
export type Plan = Static<typeof Plan>

export const Plans = Type.Array(Plan, { maxItems: 1000, description: 'Every plan, by id, with no envelope' })

export const NewPlan = Type.Object(
  {
    id: PlanId("The plan's id: a slug that never changes"),
    name: PlanTitle('A name for people'),
    limits: CustomOrLimits(PlanLimitsInput)
  },
  { additionalProperties: false, description: 'A plan to create' }
)
export type NewPlan = Static<typeof NewPlan>

export const PlanPatch = Type.Object(
  {
    name: Type.Optional(PlanTitle('A new name')),
    limits: Type.Optional(CustomOrLimits(PlanLimitsInput))
  },
  {
    additionalProperties: false,
    description: 'Changes to a plan; at least one field. Every customer on it runs under the new limits within 5 seconds, counts kept'
  }
)
export type PlanPatch = Static<typeof PlanPatch>

export const PlanIdParams = Type.Object({
  id: Type.String({
    description: "The plan's id",
    // Documented, not enforced: an id of any other shape names no plan, and is answered 404.
    [DOCUMENTED_ONLY]: { pattern: PLAN_ID_PATTERN, maxLength: 32 }
  })
})
export type PlanIdParams = Static<typeof PlanIdParams>
