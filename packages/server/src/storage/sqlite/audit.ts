import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry, AuditPageQuery, AuditRecord, AuditStore } from '../audit-types.ts'

interface AuditRow {
  id: number
  at: number
  actor_type: 'operator' | 'cli'
  actor_id: string
  actor_name: string
  action: AuditAction
  target_type: 'key' | 'operator'
  target_id: string
  target_name: string | null
  changes: string
  request_id: string | null
  remote_address: string | null
  user_agent: string | null
}

const INSERT = `INSERT INTO audit_events (at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes,
  request_id, remote_address, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

/** Writes `entry` on `db`, inside whatever transaction the caller holds there. */
export function insertAudit(db: DatabaseSync, entry: AuditEntry): void {
  const { actor, target } = entry
  db.prepare(INSERT).run(
    entry.at,
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
  )
}

/** Runs `work` in one write transaction on `db`: synchronous, so nothing else on the connection interleaves. */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE')
  try {
    const result = work()
    db.exec('COMMIT')
    return result
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
}

const toRecord = (row: AuditRow): AuditRecord => ({
  id: String(row.id),
  at: row.at,
  actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
  action: row.action,
  target: { type: row.target_type, id: row.target_id, name: row.target_name },
  changes: JSON.parse(row.changes) as AuditRecord['changes'],
  requestId: row.request_id,
  remoteAddress: row.remote_address,
  userAgent: row.user_agent
})

/** The audit log in the embedded file (migration 6), on the writing connection. */
export class SqliteAudit implements AuditStore {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async append(entry: AuditEntry): Promise<void> {
    insertAudit(this.#db, entry)
  }

  async page(query: AuditPageQuery): Promise<AuditRecord[]> {
    const where: string[] = []
    const args: SQLInputValue[] = []
    const add = (clause: string, ...values: SQLInputValue[]) => {
      where.push(clause)
      args.push(...values)
    }
    if (query.actor !== undefined) add('(actor_id = ? OR actor_name = ?)', query.actor, query.actor)
    if (query.target !== undefined) add('target_id = ?', query.target)
    if (query.action !== undefined) add('action = ?', query.action)
    if (query.from !== undefined) add('at >= ?', query.from)
    if (query.to !== undefined) add('at < ?', query.to)
    if (query.beforeId !== undefined) add('id < ?', BigInt(query.beforeId))
    const rows = this.#db
      .prepare(`SELECT * FROM audit_events ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT ?`)
      .all(...args, query.limit) as unknown as AuditRow[]
    return rows.map(toRecord)
  }
}
