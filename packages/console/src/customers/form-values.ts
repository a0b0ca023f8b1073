import type { Customer, CustomerPatch, NewCustomer } from '@animal-store/contract'
import { MAX_LIMIT, monthlyQuotaOf, type Problem } from '../limits.ts'

// The contract's rules for a customer (admin/customers/schemas.ts), repeated here so the dialog
// can say what is wrong before asking: the contract's run-time values would pull TypeBox into the
// page. The API checks them again, and its message is shown when it refuses.
const TEXT_MAX_LENGTH = 200
// Unicode Cc: C0, DEL and C1, as the contract refuses.
const CONTROL = /\p{Cc}/u

/** The fields of the Create customer and Edit dialogs, as typed (numbers parsed on submit). */
export interface CustomerFormValues {
  name: string
  /** A plan's id (listPlans). */
  plan: string
  /** Empty: none. */
  externalId: string
  /** The customer's own numbers; all empty: its plan's. */
  perMinute: string
  perDay: string
  /** With own numbers, empty: no monthly quota. */
  perMonth: string
}

export const EMPTY_CUSTOMER_FORM: CustomerFormValues = { name: '', plan: 'free', externalId: '', perMinute: '', perDay: '', perMonth: '' }

/** The form of a customer: its own numbers only, as the plan's are not the customer's to keep. */
export function customerFormOf(customer: Customer): CustomerFormValues {
  return {
    name: customer.name,
    plan: customer.plan,
    externalId: customer.externalId ?? '',
    perMinute: customer.ownLimits ? String(customer.limits.perMinute) : '',
    perDay: customer.ownLimits ? String(customer.limits.perDay) : '',
    perMonth: customer.ownLimits ? String(customer.limits.perMonth ?? '') : ''
  }
}

const failed = (value: unknown): value is Problem => typeof value === 'object' && value !== null && 'error' in value

function textOf(typed: string, label: string): string | Problem {
  const text = typed.trim()
  if (text === '') return { error: `${label} must not be empty.` }
  if (text.length > TEXT_MAX_LENGTH) return { error: `${label} must be at most ${TEXT_MAX_LENGTH} characters.` }
  if (CONTROL.test(text)) return { error: `${label} must not hold control characters.` }
  return text
}

function limit(typed: string, label: string): number | Problem {
  const value = /^[0-9]{1,10}$/.test(typed.trim()) ? Number(typed.trim()) : Number.NaN
  return value >= 1 && value <= MAX_LIMIT ? value : { error: `${label} must be a whole number from 1 to 1,000,000,000.` }
}

type OwnLimits = { perMinute: number; perDay: number; perMonth: number | null }

/**
 * The own numbers as typed: null when all are empty (the plan's), which a custom plan does not
 * allow. Own numbers replace the plan's whole, so a monthly quota alone would drop its minute and
 * day: Per month needs them given too.
 */
function limitsOf(values: CustomerFormValues, custom: boolean): OwnLimits | null | Problem {
  const [minute, day, month] = [values.perMinute.trim(), values.perDay.trim(), values.perMonth.trim()]
  if (minute === '' || day === '') {
    if (custom) return { error: 'A customer on a custom plan needs its own Per minute and Per day.' }
    if (minute === '' && day === '' && month === '') return null
    if (month === '') return { error: "Give both Per minute and Per day, or neither for the plan's numbers." }
    return { error: "Give Per minute and Per day with Per month, or none of them for the plan's numbers." }
  }
  const perMinute = limit(minute, 'Per minute')
  if (failed(perMinute)) return perMinute
  const perDay = limit(day, 'Per day')
  if (failed(perDay)) return perDay
  const perMonth = monthlyQuotaOf(month)
  if (failed(perMonth)) return perMonth
  return { perMinute, perDay, perMonth }
}

/** The createCustomer body, or the first problem found in the fields. */
export function newCustomerOf(values: CustomerFormValues, isCustom: (plan: string) => boolean): NewCustomer | string {
  const name = textOf(values.name, 'Name')
  if (failed(name)) return name.error
  const body: NewCustomer = { name, plan: values.plan }
  if (values.externalId.trim() !== '') {
    const externalId = textOf(values.externalId, 'External ID')
    if (failed(externalId)) return externalId.error
    body.externalId = externalId
  }
  const limits = limitsOf(values, isCustom(values.plan))
  if (failed(limits)) return limits.error
  if (limits !== null) body.limits = limits
  return body
}

/**
 * The updateCustomer body: only what changed. A new plan drops the customer's own numbers
 * unless they are sent again, so numbers still in the fields go with it; emptied ones, without
 * a new plan, are `limits: null` (the plan's).
 */
export function customerPatchOf(
  customer: Customer,
  values: CustomerFormValues,
  isCustom: (plan: string) => boolean
): CustomerPatch | string {
  const before = customerFormOf(customer)
  const patch: CustomerPatch = {}
  if (values.name.trim() !== before.name) {
    const name = textOf(values.name, 'Name')
    if (failed(name)) return name.error
    patch.name = name
  }
  if (values.externalId.trim() !== before.externalId) {
    const externalId = values.externalId.trim() === '' ? null : textOf(values.externalId, 'External ID')
    if (failed(externalId)) return externalId.error
    patch.externalId = externalId
  }
  const planChanged = values.plan !== before.plan
  if (planChanged) patch.plan = values.plan
  const limitsTouched = (['perMinute', 'perDay', 'perMonth'] as const).some((field) => values[field].trim() !== before[field])
  if (planChanged || limitsTouched) {
    const limits = limitsOf(values, isCustom(values.plan))
    if (failed(limits)) return limits.error
    if (limits !== null || !planChanged) patch.limits = limits
  }
  return Object.keys(patch).length === 0 ? 'Nothing was changed.' : patch
}
