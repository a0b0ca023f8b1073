import type { OperatorRole } from '@animal-store/contract'
import type { AuditEntry } from '../audit/types.ts'
import type { OperatorRecord, OperatorStore } from '../operators/types.ts'
import { insertAudit } from './audit.ts'
import type { PostgresPool } from './pool.ts'

interface OperatorRow {
  id: string
  name: string
  role: OperatorRole
  created_at: string
  revoked_at: string | null
}

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::int8 AS ${column}`
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`
const COLUMNS = `id, name, role, ${ms('created_at')}, ${ms('revoked_at')}`

const toOperator = (row: OperatorRow): OperatorRecord => ({
  id: row.id,
  name: row.name,
  role: row.role,
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at)
})

/** Operators in PostgreSQL (migration 6); each change and its audit entry in one transaction on one connection. */
export class PostgresOperators implements OperatorStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(operator: OperatorRecord, tokenHash: string, audit: AuditEntry): Promise<void> {
    await this.#db.transaction(async (client) => {
      await client.query(`INSERT INTO operators (id, token_hash, name, role, created_at) VALUES ($1, $2, $3, $4, ${fromMs('$5')})`, [
        operator.id,
        tokenHash,
        operator.name,
        operator.role,
        String(operator.createdAt)
      ])
      await insertAudit(client, audit)
    })
  }

  async findByHash(tokenHash: string): Promise<OperatorRecord | undefined> {
    const [row] = await this.#db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE token_hash = $1`, [tokenHash])
    return row === undefined ? undefined : toOperator(row)
  }

  async get(id: string): Promise<OperatorRecord | undefined> {
    const [row] = await this.#db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE id = $1`, [id])
    return row === undefined ? undefined : toOperator(row)
  }

  async list(): Promise<OperatorRecord[]> {
    return (await this.#db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators ORDER BY created_at, id`)).map(toOperator)
  }

  async revoke(id: string, at: number, audit: (revoked: OperatorRecord) => AuditEntry): Promise<OperatorRecord | undefined> {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<OperatorRow>(
        `UPDATE operators SET revoked_at = ${fromMs('$2')} WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
        [id, String(at)]
      )
      if (rows[0] === undefined) return undefined
      const revoked = toOperator(rows[0])
      await insertAudit(client, audit(revoked))
      return revoked
    })
  }
}
