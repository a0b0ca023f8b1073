import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { CHANGED_COLUMNS, keyFromRow, type KeyRow } from '../key-row.ts'
import type { ApiKeyRecord, KeyChanges, KeyMatch, KeyStore } from '../types.ts'

const KEY_COLUMNS = 'id, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at, previous_secret_expires_at'

const toKey = (row: KeyRow<number>): ApiKeyRecord => keyFromRow(row, (value) => value)

export class SqliteKeys implements KeyStore {
  readonly #db: DatabaseSync
  // Prepared on first use: the table exists only once the migrations have run.
  #byHash: StatementSync | undefined

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async create(key: ApiKeyRecord, secretHash: string): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      )
      .run(key.id, secretHash, key.prefix, key.name, key.plan, key.perMinute, key.perDay, key.createdAt, key.expiresAt, key.revokedAt)
  }

  async findByHash(secretHash: string): Promise<KeyMatch | undefined> {
    this.#byHash ??= this.#db.prepare(
      `SELECT ${KEY_COLUMNS}, CASE WHEN secret_hash = :hash THEN NULL ELSE previous_secret_expires_at END AS secret_stops_at
       FROM api_keys WHERE secret_hash = :hash OR previous_secret_hash = :hash`
    )
    const row = this.#byHash.get({ hash: secretHash }) as unknown as (KeyRow<number> & { secret_stops_at: number | null }) | undefined
    return row === undefined ? undefined : { ...toKey(row), secretStopsAt: row.secret_stops_at }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`).all() as unknown as KeyRow<number>[]
    return rows.map(toKey)
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const result = this.#db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(at, id)
    return result.changes > 0
  }

  async update(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const fields = Object.entries(changes).filter(([, value]) => value !== undefined) as Array<[keyof KeyChanges, string | number | null]>
    if (fields.length > 0) {
      const set = fields.map(([field]) => `${CHANGED_COLUMNS[field]} = ?`).join(', ')
      this.#db.prepare(`UPDATE api_keys SET ${set} WHERE id = ?`).run(...fields.map(([, value]) => value), id)
    }
    return this.get(id)
  }

  async rotate(id: string, rotation: { secretHash: string; prefix: string; previousExpiresAt: number }): Promise<ApiKeyRecord | undefined> {
    const row = this.#db
      .prepare(
        `UPDATE api_keys SET previous_secret_hash = secret_hash, previous_secret_expires_at = ?, secret_hash = ?, prefix = ?
         WHERE id = ? RETURNING ${KEY_COLUMNS}`
      )
      .get(rotation.previousExpiresAt, rotation.secretHash, rotation.prefix, id) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }
}
