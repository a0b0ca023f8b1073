// Names people read for the contract's enumerations. `satisfies Record<...>` lists every value of
// the contract's type, so a state or action added there fails the console's typecheck until it
// is named here (the contract's run-time arrays would pull TypeBox into the page). Plans are data,
// not an enumeration: their names come from listPlans (plans.ts).
import type { AuditAction, KeyState } from '@animal-store/contract'

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
  'plan.delete': true
} satisfies Record<AuditAction, true>

export const KEY_STATES = Object.keys(STATE_LABELS) as KeyState[]
export const AUDIT_ACTIONS = Object.keys(ACTIONS) as AuditAction[]

const numbers = new Intl.NumberFormat('en')

/** `1,000`: counts as people read them. */
export function count(value: number): string {
  return numbers.format(value)
}
