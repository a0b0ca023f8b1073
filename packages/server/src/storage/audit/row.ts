import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry, AuditRecord } from './types.ts'

/** An audit_events row as either backend reads it; they differ only in how id, at and changes come back. */
export interface AuditColumns<Id, At, Changes> {
  id: Id
  at: At
  actor_type: 'operator' | 'cli'
  actor_id: string
  actor_name: string
  action: AuditAction
  target_type: 'key' | 'operator' | 'plan'
  target_id: string
  target_name: string | null
  changes: Changes
  request_id: string | null
  remote_address: string | null
  user_agent: string | null
}

/** The columns of audit_events an insert names; `at` leads, in each backend's own form. */
export const AUDIT_INSERT_COLUMNS =
  'at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes, request_id, remote_address, user_agent'

/** The values of the insert after `at`, in AUDIT_INSERT_COLUMNS' order. */
export function auditValuesAfterAt(entry: AuditEntry): Array<string | null> {
  const { actor, target } = entry
  return [
    actor.type,
    actor.id,
    actor.name,
    entry.action,
    target.type,
    target.id,
    target.name,
    JSON.stringify(entry.changes),
    entry.requestId,
    entry.remoteAddress,
    entry.userAgent
  ]
}

/** The record of `row`, given its id, time and changes already converted. */
export function toAuditRecord<Id, At, Changes>(
  row: AuditColumns<Id, At, Changes>,
  id: string,
  at: number,
  changes: AuditRecord['changes']
): AuditRecord {
  return {
    id,
    at,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    action: row.action,
    target: { type: row.target_type, id: row.target_id, name: row.target_name },
    changes,
    requestId: row.request_id,
    remoteAddress: row.remote_address,
    userAgent: row.user_agent
  }
}
