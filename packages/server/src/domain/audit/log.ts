import { ADMIN_PAGE_LIMIT_DEFAULT, type AuditAction, type AuditEvent, type ListAuditQuery } from '@animal-store/contract'
import type { AuditEntry, AuditStore } from '../../storage/audit/types.ts'
import type { Actor, RequestOrigin } from '../actor.ts'
import { decodeAuditCursor, encodeAuditCursor } from '../admin-cursors.ts'
import { queryMoment } from '../iso-time.ts'

/** A change a service made (a key's or an operator's), shaped as the audit log records it less what the transport knows. */
export interface ChangeEvent {
  action: AuditAction
  actor: Actor
  target: { type: 'key' | 'operator' | 'plan' | 'customer'; id: string; name: string | null }
  /** `{field: {from, to}}` for an update, else `{}`. */
  changes: object
  /** ISO 8601, UTC. */
  at: string
}

/** Text as the audit log keeps it: control characters (which a table, terminal or CSV would act on) blanked, at most `max` characters. */
function printable(text: string | null, max: number): string | null {
  if (text === null) return null
  const clean = text.replace(/\p{Cc}/gu, ' ')
  return clean.length > max ? clean.slice(0, max) : clean
}

/** The entry the audit log stores for `event`, made through a request from `origin`. */
export function auditEntry(event: ChangeEvent, origin: RequestOrigin): AuditEntry {
  const { actor, target } = event
  return {
    at: Date.parse(event.at),
    actor: { type: actor.type, id: printable(actor.id, 64)!, name: printable(actor.name, 200)! },
    action: event.action,
    target: { type: target.type, id: target.id, name: printable(target.name, 200) },
    changes: Object.fromEntries(Object.entries(event.changes)),
    requestId: printable(origin.requestId, 128),
    remoteAddress: printable(origin.remoteAddress, 64),
    userAgent: printable(origin.userAgent, 512)
  }
}

/** The operator API's audit log: every change to a key or an operator, newest first. */
export class AuditLog {
  readonly #store: AuditStore

  constructor(store: AuditStore) {
    this.#store = store
  }

  /** A page of events that match the query, and the cursor of the next page while more may follow. */
  async page(query: ListAuditQuery): Promise<{ events: AuditEvent[]; next: string | undefined }> {
    const { actor, target, action, from, to, cursor } = query
    const limit = query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT
    const filters = { actor, target, action, from, to }
    const beforeId = cursor === undefined ? undefined : decodeAuditCursor(cursor, filters)
    // One more than asked for tells whether a next page exists: the last page links to none.
    const records = await this.#store.page({
      actor,
      target,
      action,
      from: queryMoment('from', from),
      to: queryMoment('to', to),
      beforeId,
      limit: limit + 1
    })
    const page = records.slice(0, limit)
    const events = page.map((record) => ({
      ...record,
      at: new Date(record.at).toISOString(),
      changes: record.changes
    }))
    return { events, next: records.length > limit ? encodeAuditCursor(filters, page.at(-1)!.id) : undefined }
  }
}
