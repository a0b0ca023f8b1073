import type { CustomerRecord } from '../../storage/customers/types.ts'
import type { Actor } from '../actor.ts'
import type { ChangeEvent } from '../audit/log.ts'

export type CustomerAction = 'customer.create' | 'customer.update' | 'customer.unban'

type Change = { from: string | number | null; to: string | number | null }

type Fields = Partial<Pick<CustomerRecord, 'name' | 'externalId' | 'plan' | 'perMinute' | 'perDay' | 'perMonth'>>

/** Each stored field an update changed, in the operator API's words (null numbers: the plan's); fields absent from both are left out. */
export function customerFieldChanges(before: Fields, after: Fields): Record<string, Change> {
  const changes: Record<string, Change> = {}
  for (const field of ['name', 'externalId', 'plan', 'perMinute', 'perDay', 'perMonth'] as const)
    if (before[field] !== after[field]) changes[field] = { from: before[field] ?? null, to: after[field] ?? null }
  return changes
}

/** The event of `action` by `actor` on `customer` at `now`. */
export function customerEvent(
  action: CustomerAction,
  actor: Actor,
  customer: CustomerRecord,
  now: number,
  changes: Record<string, Change> = {}
): ChangeEvent {
  return { action, actor, target: { type: 'customer', id: customer.id, name: customer.name }, changes, at: new Date(now).toISOString() }
}
