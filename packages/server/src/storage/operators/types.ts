import type { OperatorRole } from '@animal-store/contract'
import type { AuditEntry } from '../audit/types.ts'

/** A person who runs the service, signed in to the operator API with a token of their own. */
export interface OperatorRecord {
  id: string
  name: string
  role: OperatorRole
  /** Unix milliseconds. */
  createdAt: number
  revokedAt: number | null
}

/** Every change to an operator writes its audit entry in the same transaction: both are stored, or neither. */
export interface OperatorStore {
  /** Inserts the operator with the SHA-256 hash (hex) of its token, and `audit`; fails without writing when the id or hash exists. */
  create(operator: OperatorRecord, tokenHash: string, audit: AuditEntry): Promise<void>
  /** The operator whose token hashes to `tokenHash`, revoked or not, or undefined. */
  findByHash(tokenHash: string): Promise<OperatorRecord | undefined>
  /** The operator with this id, or undefined. */
  get(id: string): Promise<OperatorRecord | undefined>
  /** Every operator, oldest first. */
  list(): Promise<OperatorRecord[]>
  /** Revokes the operator at `at` and writes `audit(operator)`; undefined (nothing written) when no unrevoked operator has this id. */
  revoke(id: string, at: number, audit: (revoked: OperatorRecord) => AuditEntry): Promise<OperatorRecord | undefined>
}
