import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry } from '../../src/storage/audit/types.ts'

/** The audit entry of a change a test makes straight through a store (as SQL by hand would), by the `test` CLI user. */
export function testAudit(action: AuditAction): (target: { id: string; name: string | null }) => AuditEntry {
  return (target) => ({
    at: Date.now(),
    actor: { type: 'cli', id: 'test', name: 'test' },
    action,
    target: { type: action.startsWith('key.') ? 'key' : 'operator', id: target.id, name: target.name },
    changes: {},
    requestId: null,
    remoteAddress: null,
    userAgent: null
  })
}
