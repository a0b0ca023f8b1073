import type { Key, KeyPatch, NewKey, Scope } from '@animal-store/contract'
import { SCOPE_NAMES } from '../labels.ts'
import { fromInputValue, toInputValue, type Zone } from '../time.ts'

/** The fields of the Create and Edit dialogs, as typed (numbers and the moment parsed on submit). */
export interface KeyFormValues {
  /** The customer the new key is for; empty: a customer of its own, on `plan`. Not changed by an edit. */
  customerId: string
  /** A plan's id (listPlans). */
  plan: string
  name: string
  perMinute: string
  perDay: string
  /** The scopes checked, in any order (sent in the contract's order). */
  scopes: readonly Scope[]
  /** An `<input type="datetime-local">` value in the chosen zone; empty: no expiry. */
  expiresAt: string
}

/** An empty form on the seeded Free plan, with every scope; the Create key dialog starts on `starterPlan` once the plans are known. */
export const EMPTY_KEY_FORM: KeyFormValues = {
  customerId: '',
  plan: 'free',
  name: '',
  perMinute: '',
  perDay: '',
  scopes: SCOPE_NAMES,
  expiresAt: ''
}

/** Each scope of `scopes` once, in the contract's order. */
function ordered(scopes: readonly Scope[]): Scope[] {
  return SCOPE_NAMES.filter((scope) => scopes.includes(scope))
}

/** The form with `scope` checked or not: a scope's check box changed. */
export function withScope(values: KeyFormValues, scope: Scope, checked: boolean): KeyFormValues {
  const others = values.scopes.filter((other) => other !== scope)
  return { ...values, scopes: checked ? [...others, scope] : others }
}

export function formOf(key: Key, zone: Zone): KeyFormValues {
  return {
    customerId: key.customerId,
    plan: key.plan,
    name: key.name ?? '',
    perMinute: String(key.limits.perMinute),
    perDay: String(key.limits.perDay),
    scopes: ordered(key.scopes),
    expiresAt: key.expiresAt === null ? '' : toInputValue(key.expiresAt, zone)
  }
}

/** A whole number of at least 1, or the words that say what is wrong. */
function limit(text: string, label: string): number | string {
  return /^[1-9][0-9]{0,14}$/.test(text.trim()) ? Number(text.trim()) : `${label} must be a whole number of at least 1.`
}

function moment(text: string, zone: Zone): string | { error: string } {
  return fromInputValue(text, zone) ?? { error: 'Expires at must be a date and a time.' }
}

/**
 * The createKey body, or the first problem found in the fields. Scopes go only when not all of
 * them (the API's default). For a customer, the plan and numbers are its own: the API refuses
 * them next to `customerId`, so they are left out, whatever the hidden fields hold.
 */
export function newKeyOf(values: KeyFormValues, zone: Zone): NewKey | string {
  const forCustomer = values.customerId !== ''
  const body: NewKey = forCustomer ? { customerId: values.customerId } : { plan: values.plan }
  if (values.name.trim() !== '') body.name = values.name.trim()
  const scopes = ordered(values.scopes)
  if (scopes.length !== SCOPE_NAMES.length) body.scopes = scopes
  for (const [field, label] of [['perMinute', 'Per minute'] as const, ['perDay', 'Per day'] as const]) {
    if (forCustomer || values[field].trim() === '') continue
    const value = limit(values[field], label)
    if (typeof value === 'string') return value
    body[field] = value
  }
  if (values.expiresAt !== '') {
    const at = moment(values.expiresAt, zone)
    if (typeof at !== 'string') return at.error
    body.expiresAt = at
  }
  return body
}

/**
 * The updateKey body: only the fields that changed. A new plan drops the key's own numbers
 * unless they are sent again, so they are sent with it for a custom plan (`isCustom`, as
 * Enterprise), which has none of its own.
 */
export function patchOf(key: Key, values: KeyFormValues, zone: Zone, isCustom: (plan: string) => boolean): KeyPatch | string {
  const before = formOf(key, zone)
  const patch: KeyPatch = {}
  if (values.plan !== before.plan) patch.plan = values.plan
  if (values.name.trim() !== before.name) patch.name = values.name.trim()
  const scopes = ordered(values.scopes)
  if (scopes.join(' ') !== before.scopes.join(' ')) patch.scopes = scopes
  for (const [field, label] of [['perMinute', 'Per minute'] as const, ['perDay', 'Per day'] as const]) {
    const changed = values[field].trim() !== before[field]
    if (!changed && !(patch.plan !== undefined && isCustom(patch.plan))) continue
    const value = limit(values[field], label)
    if (typeof value === 'string') return value
    patch[field] = value
  }
  if (values.expiresAt !== before.expiresAt) {
    if (values.expiresAt === '') patch.expiresAt = null
    else {
      const at = moment(values.expiresAt, zone)
      if (typeof at !== 'string') return at.error
      patch.expiresAt = at
    }
  }
  return Object.keys(patch).length === 0 ? 'Nothing was changed.' : patch
}
