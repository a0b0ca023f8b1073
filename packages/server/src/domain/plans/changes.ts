import { MAX_MONTHLY_QUOTA, MAX_PLAN_LIMIT, PLAN_NAME_MAX_LENGTH } from '@animal-store/contract'
import type { PlanChanges, PlanRecord } from '../../storage/plans/types.ts'
import { PlanInputError, type PlanField } from './errors.ts'

// The rules for what a caller sets on a plan, in the words of the operator API's JSON bodies.

/** Limits as a caller gives them: `perMonth` null or absent for no monthly quota. */
export interface PlanLimitsInput {
  perMinute: number
  perDay: number
  perMonth?: number | null | undefined
}

/** What `create` asks for (`POST /admin/v1/plans`, `plans create`). */
export interface CreatePlanInput {
  id: string
  name: string
  limits: PlanLimitsInput | null
}

/** What `update` asks for (`PATCH /admin/v1/plans/{id}`); absent fields stay. */
export interface UpdatePlanInput {
  name?: string | undefined
  limits?: PlanLimitsInput | null | undefined
}

/** The plans a customer (or a key's own customer) may be put on, by id, with their limits (null: custom). */
export type PlanChoice = ReadonlyMap<string, Pick<PlanRecord, 'perMinute' | 'perDay'>>

export const planChoice = (plans: readonly PlanRecord[]): PlanChoice => new Map(plans.map((p) => [p.id, p]))

const PLAN_ID = /^[a-z][a-z0-9-]{0,31}$/
const shown = (value: unknown) => (typeof value === 'number' ? String(value) : JSON.stringify(value))

/** True when `value` is shaped like a plan id; anything else names no plan. */
export const looksLikePlanId = (value: unknown): value is string => typeof value === 'string' && PLAN_ID.test(value)

function planId(value: string): string {
  if (!looksLikePlanId(value))
    throw new PlanInputError(
      'id',
      (t) => `${t('id')} must be 1 to 32 lower-case letters, digits and hyphens, starting with a letter (got ${shown(value)})`
    )
  return value
}

function planName(value: string): string {
  const length = typeof value === 'string' ? [...value].length : 0
  if (typeof value !== 'string' || length < 1 || length > PLAN_NAME_MAX_LENGTH || /\p{Cc}/u.test(value))
    throw new PlanInputError('name', (t) => `${t('name')} must be 1 to ${PLAN_NAME_MAX_LENGTH} characters with no control characters`)
  if (!value.isWellFormed()) throw new PlanInputError('name', (t) => `${t('name')} must be valid Unicode text (it holds a lone surrogate)`)
  return value
}

function limit(field: PlanField, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PLAN_LIMIT)
    throw new PlanInputError(field, (t) => `${t(field)} must be a whole number from 1 to ${MAX_PLAN_LIMIT} (got ${shown(value)})`)
  return value
}

/**
 * A monthly quota as given: a whole number from 1 to MAX_MONTHLY_QUOTA, or none (null, or left
 * out); anything else is refused with `refuse`, which is handed the words of the refusal.
 */
export function monthlyQuota(
  value: unknown,
  refuse: (text: (t: (term: 'perMonth' | 'noMonthlyQuota') => string) => string) => Error
): number | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_MONTHLY_QUOTA)
    throw refuse(
      (t) =>
        `${t('perMonth')} must be a whole number from 1 to ${MAX_MONTHLY_QUOTA} (got ${shown(value)}), or ${t('noMonthlyQuota')} for none`
    )
  return value
}

function limits(value: PlanLimitsInput | null): { perMinute: number; perDay: number; perMonth: number | null } | null {
  if (value === null) return null
  if (typeof value !== 'object')
    throw new PlanInputError('limits', (t) => `${t('limits')} must be {perMinute, perDay}, or null for a custom plan`)
  return {
    perMinute: limit('perMinute', value.perMinute),
    perDay: limit('perDay', value.perDay),
    perMonth: monthlyQuota(value.perMonth, (text) => new PlanInputError('perMonth', text))
  }
}

/** The record of a new plan, checked as a whole. */
export function newPlanFields(input: CreatePlanInput): Omit<PlanRecord, 'createdAt'> {
  const checked = limits(input.limits)
  return {
    id: planId(input.id),
    name: planName(input.name),
    perMinute: checked?.perMinute ?? null,
    perDay: checked?.perDay ?? null,
    perMonth: checked?.perMonth ?? null
  }
}

/** The changes `input` asks for, checked before anything is written. */
export function planChanges(input: UpdatePlanInput): PlanChanges {
  const changes: PlanChanges = {}
  if (input.name !== undefined) changes.name = planName(input.name)
  if (input.limits !== undefined) changes.limits = limits(input.limits)
  if (Object.keys(changes).length === 0) throw new PlanInputError(null, (t) => `nothing to change: give ${t('name')} or ${t('limits')}`)
  return changes
}
