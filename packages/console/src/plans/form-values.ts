import type { NewPlan, Plan, PlanPatch } from '@animal-store/contract'
import { MAX_LIMIT, monthlyQuotaOf } from '../limits.ts'

// The contract's rules for a plan (admin/plans.ts), repeated here so the dialog can say what is
// wrong before asking: the contract's run-time values would pull TypeBox into the page. The API
// checks them again, and its message is shown when it refuses.
const PLAN_ID = /^[a-z][a-z0-9-]{0,31}$/
const NAME_MAX_LENGTH = 100
// Unicode Cc: C0, DEL and C1, as the contract refuses.
const CONTROL = /\p{Cc}/u

/** The fields of the Create plan and Edit dialogs, as typed (numbers parsed on submit). */
export interface PlanFormValues {
  id: string
  name: string
  /** A custom plan: each key on it carries its own numbers (`limits: null`). */
  custom: boolean
  perMinute: string
  perDay: string
  /** Empty: no monthly quota. */
  perMonth: string
}

export const EMPTY_PLAN_FORM: PlanFormValues = { id: '', name: '', custom: false, perMinute: '', perDay: '', perMonth: '' }

export function planFormOf(plan: Plan): PlanFormValues {
  return {
    id: plan.id,
    name: plan.name,
    custom: plan.limits === null,
    perMinute: plan.limits === null ? '' : String(plan.limits.perMinute),
    perDay: plan.limits === null ? '' : String(plan.limits.perDay),
    perMonth: String(plan.limits?.perMonth ?? '')
  }
}

const failed = (value: unknown): value is { error: string } => typeof value === 'object' && value !== null && 'error' in value

function nameOf(text: string): string | { error: string } {
  const name = text.trim()
  if (name === '') return { error: 'Name must not be empty.' }
  if (name.length > NAME_MAX_LENGTH) return { error: `Name must be at most ${NAME_MAX_LENGTH} characters.` }
  if (CONTROL.test(name)) return { error: 'Name must not hold control characters.' }
  return name
}

/** A whole number from 1 to 10^9, or the words that say what is wrong. */
function limit(text: string, label: string): number | { error: string } {
  const value = /^[0-9]{1,10}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN
  return value >= 1 && value <= MAX_LIMIT ? value : { error: `${label} must be a whole number from 1 to 1,000,000,000.` }
}

/** The plan's limits as the API takes them: `null` for a custom plan; `perMonth` always sent, as the API replaces the limits whole. */
function limitsOf(values: PlanFormValues): NewPlan['limits'] | { error: string } {
  if (values.custom) return null
  const perMinute = limit(values.perMinute, 'Per minute')
  if (typeof perMinute !== 'number') return perMinute
  const perDay = limit(values.perDay, 'Per day')
  if (typeof perDay !== 'number') return perDay
  const perMonth = monthlyQuotaOf(values.perMonth)
  if (failed(perMonth)) return perMonth
  return { perMinute, perDay, perMonth }
}

/** The createPlan body, or the first problem found in the fields. */
export function newPlanOf(values: PlanFormValues): NewPlan | string {
  const id = values.id.trim()
  if (!PLAN_ID.test(id)) return 'ID must be 1 to 32 lower-case letters, digits and hyphens, starting with a letter.'
  const name = nameOf(values.name)
  if (failed(name)) return name.error
  const limits = limitsOf(values)
  if (failed(limits)) return limits.error
  return { id, name, limits }
}

/** The updatePlan body: only what changed (the limits whole, as the API replaces them together). */
export function planPatchOf(plan: Plan, values: PlanFormValues): PlanPatch | string {
  const before = planFormOf(plan)
  const patch: PlanPatch = {}
  if (values.name.trim() !== before.name) {
    const name = nameOf(values.name)
    if (failed(name)) return name.error
    patch.name = name
  }
  const limitsChanged =
    values.custom !== before.custom ||
    (!values.custom && (['perMinute', 'perDay', 'perMonth'] as const).some((field) => values[field].trim() !== before[field]))
  if (limitsChanged) {
    const limits = limitsOf(values)
    if (failed(limits)) return limits.error
    patch.limits = limits
  }
  return Object.keys(patch).length === 0 ? 'Nothing was changed.' : patch
}
