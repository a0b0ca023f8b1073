import type { AuditStore } from './audit/types.ts'
import type { CustomerStore } from './customers/types.ts'
import type { KeyStore } from './keys/types.ts'
import type { OperatorStore } from './operators/types.ts'
import type { IdempotencyStore } from './pets/idempotency.ts'
import type { PetStore } from './pets/types.ts'
import type { PlanStore } from './plans/types.ts'
import type { UsageStore } from './usage/types.ts'

export interface Storage {
  readonly pets: PetStore
  readonly keys: KeyStore
  readonly idempotency: IdempotencyStore
  readonly usage: UsageStore
  readonly operators: OperatorStore
  readonly audit: AuditStore
  readonly plans: PlanStore
  readonly customers: CustomerStore
  /**
   * Applies pending numbered migrations, once even when several processes start together, then
   * gives a customer to each key without one (made by the previous release); returns how many migrations it applied.
   */
  migrate(): Promise<number>
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  /** Releases connections and file handles; pending writes are committed first. */
  close(): Promise<void>
}

/** Thrown by a store when its database cannot be reached; the HTTP layer answers 503. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}
