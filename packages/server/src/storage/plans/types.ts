import type { AuditEntry } from '../audit/types.ts'

/** A plan as stored: `perMinute`/`perDay` both null for a custom plan (each key on it carries its own). */
export interface PlanRecord {
  /** A slug (`^[a-z][a-z0-9-]{0,31}$`) that never changes. */
  id: string
  name: string
  perMinute: number | null
  perDay: number | null
  /** The monthly quota; null: none (always null on a custom plan). */
  perMonth: number | null
  /** Unix milliseconds. */
  createdAt: number
}

/** A plan with how many customers are on it. */
export interface PlanWithUse extends PlanRecord {
  customers: number
}

/** Fields `PlanStore.update` sets; absent ones stay. `limits: null` makes the plan custom. */
export interface PlanChanges {
  name?: string
  limits?: { perMinute: number; perDay: number; perMonth: number | null } | null
}

/** Why a plan change was refused, or the plan after it. */
export type PlanUpdate =
  | { outcome: 'updated'; before: PlanRecord; after: PlanRecord }
  | { outcome: 'missing' }
  /** Making a plan custom while a customer on it has no numbers of its own: it would be left without limits. */
  | { outcome: 'customers_without_limits'; customers: number }

export type PlanDeletion = { outcome: 'deleted'; plan: PlanRecord } | { outcome: 'missing' } | { outcome: 'in_use'; customers: number }

/**
 * Plans as data (migration 7 seeds SPEC.md's four). Every change writes its audit entry in the
 * same transaction, and each check that refuses one (in use, keys without limits) is made inside
 * that transaction, so a customer created meanwhile cannot slip past it.
 */
export interface PlanStore {
  /** Every plan, by id. */
  list(): Promise<PlanWithUse[]>
  get(id: string): Promise<PlanWithUse | undefined>
  /** Inserts the plan and `audit`; false (nothing written) when the id is taken. */
  create(plan: PlanRecord, audit: AuditEntry): Promise<boolean>
  update(id: string, changes: PlanChanges, audit: (before: PlanRecord, after: PlanRecord) => AuditEntry): Promise<PlanUpdate>
  /** Deletes a plan no customer is on. */
  delete(id: string, audit: (plan: PlanRecord) => AuditEntry): Promise<PlanDeletion>
}
