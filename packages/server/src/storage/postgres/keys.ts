import { keyFromRow, type KeyRow } from '../key-row.ts'
import type { ApiKeyRecord, KeyStore } from '../types.ts'
import type { PostgresPool } from './pool.ts'

// Times are TIMESTAMPTZ in the table (readable by an operator) and Unix milliseconds in the
// record; both conversions are exact integer arithmetic, no floating point.
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::int8 AS ${column}`
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const KEY_COLUMNS = `id, prefix, name, plan, per_minute, per_day, ${ms('created_at')}, ${ms('expires_at')}, ${ms('revoked_at')}`

// Limits and millisecond times were safe integers when written, so Number() is exact here.
const toKey = (row: KeyRow<string>): ApiKeyRecord => keyFromRow(row, Number)

const text = (value: number | null) => (value === null ? null : String(value))

export class PostgresKeys implements KeyStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(key: ApiKeyRecord, secretHash: string): Promise<void> {
    await this.#db.query(
      `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${fromMs('$8')}, ${fromMs('$9')}, ${fromMs('$10')})`,
      [
        key.id,
        secretHash,
        key.prefix,
        key.name,
        key.plan,
        text(key.perMinute),
        text(key.perDay),
        text(key.createdAt),
        text(key.expiresAt),
        text(key.revokedAt)
      ]
    )
  }

  async findByHash(secretHash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.#db.query<KeyRow<string>>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE secret_hash = $1`, [secretHash])
    return row === undefined ? undefined : toKey(row)
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.#db.query<KeyRow<string>>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id])
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.#db.query<KeyRow<string>>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`)).map(toKey)
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const rows = await this.#db.query(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${fromMs('$1')}) WHERE id = $2 RETURNING id`, [
      String(at),
      id
    ])
    return rows.length > 0
  }
}
