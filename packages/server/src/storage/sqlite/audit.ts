import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import { AUDIT_INSERT_COLUMNS, auditValuesAfterAt, toAuditRecord, type AuditColumns } from '../audit/row.ts'
import type { AuditEntry, AuditPageQuery, AuditRecord, AuditStore } from '../audit/types.ts'

type AuditRow = AuditColumns<number, number, string>

const INSERT = `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

/** Writes `entry` on `db`, inside whatever transaction the caller holds there. */
export function insertAudit(db: DatabaseSync, entry: AuditEntry): void {
  db.prepare(INSERT).run(entry.at, ...auditValuesAfterAt(entry))
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

const toRecord = (row: AuditRow): AuditRecord =>
  toAuditRecord(row, String(row.id), row.at, JSON.parse(row.changes) as AuditRecord['changes'])

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
