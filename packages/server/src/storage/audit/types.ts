import type { AuditAction } from '@animal-store/contract'

/** A field's value before and after a change: text, a whole number or null. */
interface AuditedChange {
  from: string | number | null
  to: string | number | null
}

/** One change to a key or an operator as the audit log stores it: never a secret, token or hash. */
export interface AuditEntry {
  /** Unix milliseconds. */
  at: number
  actor: { type: 'operator' | 'cli'; id: string; name: string }
  action: AuditAction
  target: { type: 'key' | 'operator' | 'plan' | 'customer'; id: string; name: string | null }
  /** `{field: {from, to}}` for an update, else `{}`. */
  changes: Record<string, AuditedChange>
  /** What the transport knew of the request; null from the CLI. */
  requestId: string | null
  remoteAddress: string | null
  userAgent: string | null
}

/** A stored entry: its id is a decimal number, larger for entries stored later. */
export interface AuditRecord extends AuditEntry {
  id: string
}

/** Which entries a page holds; every filter given must match. */
export interface AuditPageQuery {
  /** An actor's id or name. */
  actor?: string | undefined
  /** A target's id. */
  target?: string | undefined
  action?: AuditAction | undefined
  /** At or after, and before, these Unix milliseconds. */
  from?: number | undefined
  to?: number | undefined
  /** Only entries with a smaller id (the last of the previous page). */
  beforeId?: string | undefined
  limit: number
}

export interface AuditStore {
  /** Stores the entry in one statement (for changes made outside the database, such as an unban). */
  append(entry: AuditEntry): Promise<void>
  /** At most `limit` entries that match, newest (largest id) first. */
  page(query: AuditPageQuery): Promise<AuditRecord[]>
}
