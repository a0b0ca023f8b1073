import type { PoolClient } from 'pg'
import type { AuditAction } from '@animal-store/contract'
import type { AuditEntry, AuditPageQuery, AuditRecord, AuditStore } from '../audit-types.ts'
import type { PostgresPool } from './pool.ts'

interface AuditRow {
  id: string
  at: string
  actor_type: 'operator' | 'cli'
  actor_id: string
  actor_name: string
  action: AuditAction
  target_type: 'key' | 'operator'
  target_id: string
  target_name: string | null
  changes: AuditRecord['changes']
  request_id: string | null
  remote_address: string | null
  user_agent: string | null
}

// Times are TIMESTAMPTZ in the table and Unix milliseconds in the record, converted exactly.
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const INSERT = `INSERT INTO audit_events (at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes,
  request_id, remote_address, user_agent) VALUES (${fromMs('$1')}, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12)`

const COLUMNS = `id, (extract(epoch FROM at) * 1000)::int8 AS at, actor_type, actor_id, actor_name, action, target_type, target_id,
  target_name, changes, request_id, remote_address, user_agent`

function values(entry: AuditEntry): unknown[] {
  const { actor, target } = entry
  return [
    String(entry.at),
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

/** Writes `entry` on `client`, inside the transaction the caller holds there. */
export async function insertAudit(client: PoolClient, entry: AuditEntry): Promise<void> {
  await client.query(INSERT, values(entry))
}

const toRecord = (row: AuditRow): AuditRecord => ({
  id: row.id,
  at: Number(row.at),
  actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
  action: row.action,
  target: { type: row.target_type, id: row.target_id, name: row.target_name },
  changes: row.changes,
  requestId: row.request_id,
  remoteAddress: row.remote_address,
  userAgent: row.user_agent
})

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
