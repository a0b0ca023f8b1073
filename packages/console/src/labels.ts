// Names people read for the contract's enumerations. `satisfies Record<...>` lists every value of
// the contract's type, so a state or action added there fails the console's typecheck until it
// is named here (the contract's run-time arrays would pull TypeBox into the page). Plans are data,
// not an enumeration: their names come from listPlans (plans.ts).
import type { AuditAction, KeyState, Scope } from '@animal-store/contract'
import type { ExportFormat } from './usage-export.ts'

export const STATE_LABELS = { active: 'Active', revoked: 'Revoked', expired: 'Expired', banned: 'Banned' } satisfies Record<
  KeyState,
  string
>

// Actions are shown as the API names them (`key.update`), as the audit log's readers search for them.
const ACTIONS = {
  'key.create': true,
  'key.update': true,
  'key.rotate': true,
  'key.revoke': true,
  'key.unban': true,
  'operator.create': true,
  'operator.revoke': true,
  'plan.create': true,
  'plan.update': true,
  'plan.delete': true,
  'customer.create': true,
  'customer.update': true,
  'customer.unban': true
} satisfies Record<AuditAction, true>

// Scopes are shown as the API names them (`pets:read`), with what each lets a key do.
const SCOPE_HINTS = { 'pets:read': 'List and get animals.', 'pets:write': 'Create animals.' } satisfies Record<Scope, string>

export const KEY_STATES = Object.keys(STATE_LABELS) as KeyState[]
/** Every scope, in the contract's order (`SCOPES`). */
export const SCOPE_NAMES = Object.keys(SCOPE_HINTS) as Scope[]

export function scopeHint(scope: Scope): string {
  return SCOPE_HINTS[scope]
}
export const AUDIT_ACTIONS = Object.keys(ACTIONS) as AuditAction[]

/** The usage export's formats (`EXPORT_FORMATS`), named for whoever bills with them. */
export const EXPORT_FORMAT_LABELS = { cloudevents: 'CloudEvents (OpenMeter)', stripe: 'Stripe meter events' } satisfies Record<
  ExportFormat,
  string
>
export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMAT_LABELS) as ExportFormat[]

const numbers = new Intl.NumberFormat('en')

/** `1,000`: counts as people read them. */
export function count(value: number): string {
  return numbers.format(value)
}
