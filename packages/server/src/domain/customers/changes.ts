import { CUSTOMER_NAME_MAX_LENGTH, EXTERNAL_ID_MAX_LENGTH, MAX_PLAN_LIMIT } from '@animal-store/contract'
import type { CustomerChanges, CustomerRecord } from '../../storage/customers/types.ts'
import { monthlyQuota, type PlanChoice } from '../plans/changes.ts'
import { CustomerInputError, type CustomerField } from './errors.ts'

// The rules for what a caller sets on a customer, in the words of the operator API's JSON bodies.

/** A customer's own numbers as a caller gives them: `perMonth` null or absent for no monthly quota (not its plan's). */
interface OwnLimitsInput {
  perMinute: number
  perDay: number
  perMonth?: number | null | undefined
}

/** What `create` asks for (`POST /admin/v1/customers`, `customers create`). */
export interface CreateCustomerInput {
  name: string
  plan: string
  externalId?: string | undefined
  limits?: OwnLimitsInput | undefined
}

/** What `update` asks for (`PATCH /admin/v1/customers/{id}`); absent fields stay, `limits: null` means the plan's. */
export interface UpdateCustomerInput {
  name?: string | undefined
  plan?: string | undefined
  externalId?: string | null | undefined
  limits?: OwnLimitsInput | null | undefined
}

const CUSTOMER_ID = /^cus_[0-9A-Za-z]{16}$/
const shown = (value: unknown) => (typeof value === 'number' ? String(value) : JSON.stringify(value))

/** True when the text has the shape of a customer id we issue: anything else names no customer. */
export const looksLikeCustomerId = (id: unknown): id is string => typeof id === 'string' && CUSTOMER_ID.test(id)

/** Text of 1 to `max` characters with no control characters, in well-formed Unicode. */
function text(field: 'name' | 'externalId', value: unknown, max: number): string {
  const length = typeof value === 'string' ? [...value].length : 0
  if (typeof value !== 'string' || length < 1 || length > max || /\p{Cc}/u.test(value))
    throw new CustomerInputError(field, (t) => `${t(field)} must be 1 to ${max} characters with no control characters`)
  if (!value.isWellFormed())
    throw new CustomerInputError(field, (t) => `${t(field)} must be valid Unicode text (it holds a lone surrogate)`)
  return value
}

const customerName = (value: unknown): string => text('name', value, CUSTOMER_NAME_MAX_LENGTH)

function plan(value: unknown, plans: PlanChoice): string {
  if (typeof value !== 'string' || !plans.has(value))
    throw new CustomerInputError('plan', (t) => `${t('plan')} must be one of ${[...plans.keys()].join(', ')} (got ${shown(value)})`)
  return value
}

function limit(field: CustomerField, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PLAN_LIMIT)
    throw new CustomerInputError(field, (t) => `${t(field)} must be a whole number from 1 to ${MAX_PLAN_LIMIT} (got ${shown(value)})`)
  return value
}

/** The own numbers `value` asks for, as stored; null asks for the plan's, monthly quota included: none of the customer's is kept. */
function ownLimits(value: OwnLimitsInput | null): Pick<CustomerRecord, 'perMinute' | 'perDay' | 'perMonth'> {
  if (value === null) return { perMinute: null, perDay: null, perMonth: null }
  if (typeof value !== 'object')
    throw new CustomerInputError('limits', (t) => `${t('limits')} must be {perMinute, perDay}, or null for the plan's`)
  return {
    perMinute: limit('perMinute', value.perMinute),
    perDay: limit('perDay', value.perDay),
    perMonth: monthlyQuota(value.perMonth, (text) => new CustomerInputError('perMonth', text))
  }
}

/** A customer on a custom plan (enterprise) needs both numbers of its own. */
function checkCustom(plans: PlanChoice, customer: Pick<CustomerRecord, 'plan' | 'perMinute' | 'perDay'>): void {
  const limits = plans.get(customer.plan)
  if ((limits?.perMinute === null || limits?.perDay === null) && (customer.perMinute === null || customer.perDay === null))
    throw new CustomerInputError('limits', (t) => `a customer on the custom plan ${customer.plan} needs ${t('limits')} of its own`)
}

/** The fields of a new customer, checked as a whole. */
export function newCustomerFields(
  input: CreateCustomerInput,
  plans: PlanChoice
): Pick<CustomerRecord, 'name' | 'plan' | 'externalId' | 'perMinute' | 'perDay' | 'perMonth'> {
  const fields = {
    name: customerName(input.name),
    plan: plan(input.plan, plans),
    externalId: input.externalId === undefined ? null : text('externalId', input.externalId, EXTERNAL_ID_MAX_LENGTH),
    ...ownLimits(input.limits ?? null)
  }
  checkCustom(plans, fields)
  return fields
}

/** The changes `input` asks of `customer`, checked as a whole: a new plan drops its own numbers unless given again. */
export function customerChanges(customer: CustomerRecord, input: UpdateCustomerInput, plans: PlanChoice): CustomerChanges {
  const changes: CustomerChanges = {}
  if (input.name !== undefined) changes.name = customerName(input.name)
  if (input.externalId !== undefined)
    changes.externalId = input.externalId === null ? null : text('externalId', input.externalId, EXTERNAL_ID_MAX_LENGTH)
  if (input.plan !== undefined) Object.assign(changes, { plan: plan(input.plan, plans), perMinute: null, perDay: null, perMonth: null })
  if (input.limits !== undefined) Object.assign(changes, ownLimits(input.limits))
  if (Object.keys(changes).length === 0)
    throw new CustomerInputError(
      null,
      (t) => `nothing to change: give ${(['name', 'plan', 'externalId', 'limits'] as const).map(t).join(', ')}`
    )
  checkCustom(plans, { ...customer, ...changes })
  return changes
}
