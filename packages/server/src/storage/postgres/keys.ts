import { CHANGED_COLUMNS, keyFromRow, type KeyRow } from '../key-row.ts'
import type { ApiKeyRecord, KeyChanges, KeyMatch, KeyStore } from '../types.ts'
import type { PostgresPool } from './pool.ts'

// Times are TIMESTAMPTZ in the table (readable by an operator) and Unix milliseconds in the
// record; both conversions are exact integer arithmetic, no floating point.
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::int8 AS ${column}`
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const KEY_COLUMNS =
  `id, prefix, name, plan, per_minute, per_day, ${ms('created_at')}, ${ms('expires_at')}, ${ms('revoked_at')}, ` +
  ms('previous_secret_expires_at')

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

  async findByHash(secretHash: string): Promise<KeyMatch | undefined> {
    const [row] = await this.#db.query<KeyRow<string> & { secret_stops_at: string | null }>(
      `SELECT ${KEY_COLUMNS},
         CASE WHEN secret_hash = $1 THEN NULL ELSE (extract(epoch FROM previous_secret_expires_at) * 1000)::int8 END AS secret_stops_at
       FROM api_keys WHERE secret_hash = $1 OR previous_secret_hash = $1`,
      [secretHash]
    )
    return row === undefined
      ? undefined
      : { ...toKey(row), secretStopsAt: row.secret_stops_at === null ? null : Number(row.secret_stops_at) }
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

  async update(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const fields = Object.entries(changes).filter(([, value]) => value !== undefined) as Array<[keyof KeyChanges, string | number | null]>
    if (fields.length === 0) return this.get(id)
    const set = fields.map(([field], i) => `${CHANGED_COLUMNS[field]} = ${field === 'expiresAt' ? fromMs(`$${i + 2}`) : `$${i + 2}`}`)
    const [row] = await this.#db.query<KeyRow<string>>(`UPDATE api_keys SET ${set.join(', ')} WHERE id = $1 RETURNING ${KEY_COLUMNS}`, [
      id,
      ...fields.map(([, value]) => (typeof value === 'number' ? String(value) : value))
    ])
    return row === undefined ? undefined : toKey(row)
  }

  async rotate(id: string, rotation: { secretHash: string; prefix: string; previousExpiresAt: number }): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.#db.query<KeyRow<string>>(
      `UPDATE api_keys SET previous_secret_hash = secret_hash, previous_secret_expires_at = ${fromMs('$2')}, secret_hash = $3, prefix = $4
       WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id, String(rotation.previousExpiresAt), rotation.secretHash, rotation.prefix]
    )
    return row === undefined ? undefined : toKey(row)
  }
}
