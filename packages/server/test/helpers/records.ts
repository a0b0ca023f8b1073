import { createHash } from 'node:crypto'
import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry } from '../../src/storage/audit/types.ts'
import type { CustomerRecord } from '../../src/storage/customers/types.ts'
import type { ApiKeyRecord } from '../../src/storage/keys/types.ts'

// Records the store tests write straight through a store, at one fixed moment.

export const AT = 1_781_524_810_123

/** The audit entry of a change to a plan or a customer, by the `test` CLI user. */
export const cliAudit =
  (type: 'plan' | 'customer', action: AuditAction, changes: AuditEntry['changes'] = {}) =>
  (target: { id: string; name: string }): AuditEntry => ({
    at: AT,
    actor: { type: 'cli', id: 'test', name: 'test' },
    action,
    target: { type, id: target.id, name: target.name },
    changes,
    requestId: null,
    remoteAddress: null,
    userAgent: null
  })

/** A customer on the free plan counting under its own id, with `fields` changed. */
export const customerRecord = (id: string, fields: Partial<CustomerRecord> = {}): CustomerRecord => ({
  id,
  name: `Customer ${id}`,
  externalId: null,
  plan: 'free',
  perMinute: null,
  perDay: null,
  perMonth: null,
  counterId: id,
  createdAt: AT,
  ...fields
})

/** A key of `owner`: it runs under the customer's plan and numbers. */
export const keyRecord = (id: string, owner: CustomerRecord): ApiKeyRecord => ({
  id,
  prefix: `as_live_${id.slice(-4)}`,
  name: null,
  customerId: owner.id,
  counterId: owner.counterId,
  plan: owner.plan,
  perMinute: owner.perMinute,
  perDay: owner.perDay,
  perMonth: owner.perMonth,
  createdAt: AT,
  expiresAt: null,
  revokedAt: null,
  previousSecretExpiresAt: null,
  scopes: ['pets:read', 'pets:write']
})

/** A stand-in for a secret's hash: the SHA-256 of the key's id. */
export const hashOf = (id: string) => createHash('sha256').update(id).digest('hex')
