import { SCOPES, type Scope } from '@animal-store/contract'
import type { ApiKeyRecord, KeyChanges } from '../../storage/keys/types.ts'
import type { PlanChoice } from '../plans/changes.ts'
import { parseIsoTime } from '../iso-time.ts'
import { looksLikeCustomerId } from '../customers/changes.ts'
import { KeyInputError } from './errors.ts'

// The rules for what a caller sets on a key, in the words of the operator API's JSON bodies.

/** What `create` asks for (`POST /admin/v1/keys`, `keys create`): a customer's id, or a plan for a customer of the key's own. */
export interface CreateKeyInput {
  customerId?: string | undefined
  plan?: string | undefined
  name?: string | undefined
  perMinute?: number | undefined
  perDay?: number | undefined
  scopes?: readonly string[] | undefined
  expiresAt?: string | undefined
}

/** What `update` asks for (`PATCH /admin/v1/keys/{id}`); absent fields stay as they are, `expiresAt: null` removes the expiry. */
export interface UpdateKeyInput {
  plan?: string | undefined
  name?: string | undefined
  perMinute?: number | undefined
  perDay?: number | undefined
  scopes?: readonly string[] | undefined
  expiresAt?: string | null | undefined
}

/** What `rotate` asks for (`POST /admin/v1/keys/{id}/rotate`): how long the old secret keeps working. */
export interface RotateKeyInput {
  graceSeconds?: number | undefined
}

/** The grace a rotation gives the old secret unless told: one day; at most 30 days. */
const DEFAULT_GRACE_SECONDS = 86_400
const MAX_GRACE_SECONDS = 30 * 86_400
const MAX_NAME_LENGTH = 200

const shown = (value: unknown) => (typeof value === 'number' ? String(value) : JSON.stringify(value))

function plan(value: string, plans: PlanChoice): string {
  if (typeof value !== 'string' || !plans.has(value))
    throw new KeyInputError('plan', (t) => `${t('plan')} must be one of ${[...plans.keys()].join(', ')} (got ${shown(value)})`)
  return value
}

function limit(field: 'perMinute' | 'perDay', value: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new KeyInputError(field, (t) => `${t(field)} must be a whole number of at least 1 (got ${shown(value)})`)
  if (!Number.isSafeInteger(value))
    throw new KeyInputError(field, (t) => `${t(field)} must be at most ${Number.MAX_SAFE_INTEGER} (got ${shown(value)})`)
  return value
}

function name(value: string): string {
  if (typeof value !== 'string' || /\p{Cc}/u.test(value) || (value.length > MAX_NAME_LENGTH && [...value].length > MAX_NAME_LENGTH))
    throw new KeyInputError('name', (t) => `${t('name')} must be at most ${MAX_NAME_LENGTH} characters with no control characters`)
  if (!value.isWellFormed()) throw new KeyInputError('name', (t) => `${t('name')} must be valid Unicode text (it holds a lone surrogate)`)
  return value
}

/** Distinct scopes, each one of SCOPES, kept in SCOPES order. */
function scopes(value: readonly string[]): readonly Scope[] {
  const known = (scope: unknown): scope is Scope => typeof scope === 'string' && (SCOPES as readonly string[]).includes(scope)
  if (!Array.isArray(value) || !value.every(known) || new Set(value).size !== value.length)
    throw new KeyInputError(
      'scopes',
      (t) => `${t('scopes')} must be distinct scopes, each one of ${SCOPES.join(', ')} (got ${shown(value)})`
    )
  return SCOPES.filter((scope) => value.includes(scope))
}

/** An ISO 8601 date-time in the future, as Unix milliseconds. */
function expiry(text: string, now: number): number {
  const at = typeof text === 'string' ? parseIsoTime(text) : undefined
  if (at === undefined)
    throw new KeyInputError(
      'expiresAt',
      (t) => `${t('expiresAt')} must be an ISO 8601 date-time with a UTC offset, such as 2030-01-01T00:00:00Z (got ${shown(text)})`
    )
  if (Number.isNaN(at)) throw new KeyInputError('expiresAt', (t) => `${t('expiresAt')} names no real date and time (got ${shown(text)})`)
  if (at <= now) throw new KeyInputError('expiresAt', (t) => `${t('expiresAt')} must be in the future (got ${shown(text)})`)
  return at
}

/** A custom plan (enterprise) has no numbers: a key on it needs both of its own. */
function checkCustom(plans: PlanChoice, plan: string, perMinute: number | null, perDay: number | null): void {
  const limits = plans.get(plan)
  if ((limits?.perMinute === null || limits?.perDay === null) && (perMinute === null || perDay === null))
    throw new KeyInputError(
      perMinute === null ? 'perMinute' : 'perDay',
      (t) => `a key on the custom plan ${plan} needs both ${t('perMinute')} and ${t('perDay')} (its customer's own numbers)`
    )
}

/** The fields of a new key that are its own (not its customer's), checked. */
export function newKeyFields(input: CreateKeyInput, now: number): Pick<ApiKeyRecord, 'name' | 'expiresAt' | 'scopes'> {
  return {
    name: input.name === undefined ? null : name(input.name),
    expiresAt: input.expiresAt === undefined ? null : expiry(input.expiresAt, now),
    scopes: input.scopes === undefined ? SCOPES : scopes(input.scopes)
  }
}

/** Which customer a new key is for: `customerId`, or (`plan`) one of its own with these plan and numbers. */
export function newKeyCustomer(
  input: CreateKeyInput,
  plans: PlanChoice
): { customerId: string } | Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'> {
  if (input.customerId !== undefined) {
    if (input.plan !== undefined || input.perMinute !== undefined || input.perDay !== undefined)
      throw new KeyInputError(
        'customerId',
        (t) =>
          `give ${t('customerId')} or ${t('plan')}, not both: a key for a customer runs under the customer's plan and limits ` +
          `(${t('perMinute')} and ${t('perDay')} go with ${t('plan')})`
      )
    if (!looksLikeCustomerId(input.customerId))
      throw new KeyInputError(
        'customerId',
        (t) => `${t('customerId')} must be a customer's id, such as cus_4Rk8Wq2Zx7Lm3Np9 (got ${shown(input.customerId)})`
      )
    return { customerId: input.customerId }
  }
  if (input.plan === undefined)
    throw new KeyInputError('plan', (t) => `give ${t('customerId')}, or ${t('plan')} for a customer of the key's own`)
  const fields = {
    plan: plan(input.plan, plans),
    perMinute: input.perMinute === undefined ? null : limit('perMinute', input.perMinute),
    perDay: input.perDay === undefined ? null : limit('perDay', input.perDay)
  }
  checkCustom(plans, fields.plan, fields.perMinute, fields.perDay)
  return fields
}

/**
 * The changes `input` asks of `key`, checked as a whole before anything is written. A new plan
 * brings its own numbers: overrides the key had are dropped unless given again, and a key on
 * a custom plan needs both.
 */
export function keyChanges(key: ApiKeyRecord, input: UpdateKeyInput, now: number, plans: PlanChoice): KeyChanges {
  const changes: KeyChanges = {}
  // The customer's own monthly quota goes with its own numbers.
  if (input.plan !== undefined) Object.assign(changes, { plan: plan(input.plan, plans), perMinute: null, perDay: null, perMonth: null })
  if (input.perMinute !== undefined) changes.perMinute = limit('perMinute', input.perMinute)
  if (input.perDay !== undefined) changes.perDay = limit('perDay', input.perDay)
  const after = { ...key, ...changes }
  checkCustom(plans, after.plan, after.perMinute, after.perDay)
  if (input.name !== undefined) changes.name = name(input.name)
  if (input.scopes !== undefined) changes.scopes = scopes(input.scopes)
  if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt === null ? null : expiry(input.expiresAt, now)
  if (Object.keys(changes).length === 0) {
    const terms = ['plan', 'perMinute', 'perDay', 'name', 'scopes', 'expiresAt'] as const
    throw new KeyInputError(null, (t) => `nothing to change: give ${terms.map(t).join(', ')} or ${t('noExpiry')}`)
  }
  return changes
}

/** The grace of a rotation, in whole seconds from 0 to 30 days; a day unless given. */
export function graceSeconds(value: number | undefined): number {
  if (value === undefined) return DEFAULT_GRACE_SECONDS
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_GRACE_SECONDS)
    throw new KeyInputError(
      'graceSeconds',
      (t) => `${t('graceSeconds')} must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (got ${shown(value)})`
    )
  return value
}
