import type { DatabaseSync } from 'node:sqlite'
import type { OperatorRole } from '@animal-store/contract'
import type { AuditEntry } from '../audit/types.ts'
import type { OperatorRecord, OperatorStore } from '../operators/types.ts'
import { inTransaction, insertAudit } from './audit.ts'

interface OperatorRow {
  id: string
  name: string
  role: OperatorRole
  created_at: number
  revoked_at: number | null
}

const COLUMNS = 'id, name, role, created_at, revoked_at'

const toOperator = (row: OperatorRow): OperatorRecord => ({
  id: row.id,
  name: row.name,
  role: row.role,
  createdAt: row.created_at,
  revokedAt: row.revoked_at
})

/** Operators in the embedded file (migration 6); each change and its audit entry in one transaction. */
export class SqliteOperators implements OperatorStore {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async create(operator: OperatorRecord, tokenHash: string, audit: AuditEntry): Promise<void> {
    inTransaction(this.#db, () => {
      this.#db
        .prepare('INSERT INTO operators (id, token_hash, name, role, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(operator.id, tokenHash, operator.name, operator.role, operator.createdAt, operator.revokedAt)
      insertAudit(this.#db, audit)
    })
  }

  async findByHash(tokenHash: string): Promise<OperatorRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${COLUMNS} FROM operators WHERE token_hash = ?`).get(tokenHash) as unknown as
      OperatorRow | undefined
    return row === undefined ? undefined : toOperator(row)
  }

  async get(id: string): Promise<OperatorRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${COLUMNS} FROM operators WHERE id = ?`).get(id) as unknown as OperatorRow | undefined
    return row === undefined ? undefined : toOperator(row)
  }

  async list(): Promise<OperatorRecord[]> {
    const rows = this.#db.prepare(`SELECT ${COLUMNS} FROM operators ORDER BY created_at, id`).all() as unknown as OperatorRow[]
    return rows.map(toOperator)
  }

  async revoke(id: string, at: number, audit: (revoked: OperatorRecord) => AuditEntry): Promise<OperatorRecord | undefined> {
    return inTransaction(this.#db, () => {
      const row = this.#db
        .prepare(`UPDATE operators SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${COLUMNS}`)
        .get(at, id) as unknown as OperatorRow | undefined
      if (row === undefined) return undefined
      const revoked = toOperator(row)
      insertAudit(this.#db, audit(revoked))
      return revoked
    })
  }
}
