import type { Key, KeyPatch, NewKey } from '@animal-store/contract'
import { fromInputValue, toInputValue, type Zone } from './time.ts'

/** The fields of the Create and Edit dialogs, as typed (numbers and the moment parsed on submit). */
export interface KeyFormValues {
  /** A plan's id (listPlans). */
  plan: string
  name: string
  perMinute: string
  perDay: string
  /** An `<input type="datetime-local">` value in the chosen zone; empty: no expiry. */
  expiresAt: string
}

/** An empty form on the seeded Free plan; the Create key dialog starts on `starterPlan` once the plans are known. */
export const EMPTY_KEY_FORM: KeyFormValues = { plan: 'free', name: '', perMinute: '', perDay: '', expiresAt: '' }

export function formOf(key: Key, zone: Zone): KeyFormValues {
  return {
    plan: key.plan,
    name: key.name ?? '',
    perMinute: String(key.limits.perMinute),
    perDay: String(key.limits.perDay),
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

/** The createKey body, or the first problem found in the fields. */
export function newKeyOf(values: KeyFormValues, zone: Zone): NewKey | string {
  const body: NewKey = { plan: values.plan }
  if (values.name.trim() !== '') body.name = values.name.trim()
  for (const [field, label] of [['perMinute', 'Per minute'] as const, ['perDay', 'Per day'] as const]) {
    if (values[field].trim() === '') continue
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
