import type { PoolClient } from 'pg'
import { AUDIT_INSERT_COLUMNS, auditValuesAfterAt, toAuditRecord, type AuditColumns } from '../audit/row.ts'
import type { AuditEntry, AuditPageQuery, AuditRecord, AuditStore } from '../audit/types.ts'
import type { PostgresPool } from './pool.ts'

type AuditRow = AuditColumns<string, string, AuditRecord['changes']>

// Times are TIMESTAMPTZ in the table and Unix milliseconds in the record, converted exactly.
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const INSERT = `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS})
  VALUES (${fromMs('$1')}, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12)`

const COLUMNS = `id, (extract(epoch FROM at) * 1000)::int8 AS at, actor_type, actor_id, actor_name, action, target_type, target_id,
  target_name, changes, request_id, remote_address, user_agent`

const values = (entry: AuditEntry): unknown[] => [String(entry.at), ...auditValuesAfterAt(entry)]

/** Writes `entry` on `client`, inside the transaction the caller holds there. */
export async function insertAudit(client: PoolClient, entry: AuditEntry): Promise<void> {
  await client.query(INSERT, values(entry))
}

const toRecord = (row: AuditRow): AuditRecord => toAuditRecord(row, row.id, Number(row.at), row.changes)

/** The audit log in PostgreSQL (migration 6). */
export class PostgresAudit implements AuditStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async append(entry: AuditEntry): Promise<void> {
    await this.#db.query(INSERT, values(entry))
  }

  async page(query: AuditPageQuery): Promise<AuditRecord[]> {
    const where: string[] = []
    const args: unknown[] = []
    const add = (clause: (next: string) => string, value: unknown) => {
      args.push(value)
      where.push(clause(`$${args.length}`))
    }
    if (query.actor !== undefined) add((p) => `(actor_id = ${p} OR actor_name = ${p})`, query.actor)
    if (query.target !== undefined) add((p) => `target_id = ${p}`, query.target)
    if (query.action !== undefined) add((p) => `action = ${p}`, query.action)
    if (query.from !== undefined) add((p) => `at >= ${fromMs(p)}`, String(query.from))
    if (query.to !== undefined) add((p) => `at < ${fromMs(p)}`, String(query.to))
    if (query.beforeId !== undefined) add((p) => `id < ${p}::int8`, query.beforeId)
    args.push(query.limit)
    const rows = await this.#db.query<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_events ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT $${args.length}`,
      args
    )
    return rows.map(toRecord)
  }
}
