import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import type { AuditEntry } from '../audit/types.ts'
import type { KeyPageQuery } from '../keys/page.ts'
import { CHANGED_COLUMNS, changedValues, keyFromRow, scopesText, type KeyRow } from '../keys/row.ts'
import type { ApiKeyRecord, KeyChanges, KeyMatch, KeyStore } from '../keys/types.ts'
import { inTransaction, insertAudit } from './audit.ts'

const KEY_COLUMNS = 'id, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at, previous_secret_expires_at, scopes'

const toKey = (row: KeyRow<number>): ApiKeyRecord => keyFromRow(row, (value) => value)

/** The WHERE clauses and their values of a page of keys (names compared folded by `as_fold`, JavaScript's lower case). */
function pageFilter(query: KeyPageQuery): [string[], SQLInputValue[]] {
  const where: string[] = []
  const args: SQLInputValue[] = []
  const add = (clause: string, ...values: SQLInputValue[]) => {
    where.push(clause)
    args.push(...values)
  }
  const { search, status, now } = query
  if (search !== undefined)
    add('(instr(lower(id), ?) > 0 OR instr(lower(prefix), ?) > 0 OR instr(as_fold(name), ?) > 0)', search, search, search)
  if (query.plan !== undefined) add('plan = ?', query.plan)
  if (status === 'live') add('revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)', now)
  if (status === 'revoked') add('revoked_at IS NOT NULL')
  if (status === 'expired') add('revoked_at IS NULL AND expires_at <= ?', now)
  if (query.onlyIds !== undefined) add('id IN (SELECT value FROM json_each(?))', JSON.stringify(query.onlyIds))
  if (query.exceptIds !== undefined) add('id NOT IN (SELECT value FROM json_each(?))', JSON.stringify(query.exceptIds))
  if (query.before !== undefined) add('(created_at, id) < (?, ?)', query.before.createdAt, query.before.id)
  return [where, args]
}

/** Keys in the embedded file; each change and its audit entry in one transaction on the writing connection. */
export class SqliteKeys implements KeyStore {
  readonly #db: DatabaseSync
  // Prepared on first use: the table exists only once the migrations have run.
  #byHash: StatementSync | undefined

  constructor(db: DatabaseSync) {
    this.#db = db
    // SQLite's lower() folds ASCII only: names are searched in any case, as JavaScript folds them.
    db.function('as_fold', { deterministic: true }, (value) => (typeof value === 'string' ? value.toLowerCase() : value))
  }

  async create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry): Promise<void> {
    inTransaction(this.#db, () => {
      this.#db
        .prepare(
          `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at, scopes)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        )
        .run(
          key.id,
          secretHash,
          key.prefix,
          key.name,
          key.plan,
          key.perMinute,
          key.perDay,
          key.createdAt,
          key.expiresAt,
          key.revokedAt,
          scopesText(key.scopes)
        )
      insertAudit(this.#db, audit)
    })
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
    return this.#get(id)
  }

  #get(id: string): ApiKeyRecord | undefined {
    const row = this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = this.#db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`).all() as unknown as KeyRow<number>[]
    return rows.map(toKey)
  }

  async page(query: KeyPageQuery): Promise<ApiKeyRecord[]> {
    const [where, args] = pageFilter(query)
    const rows = this.#db
      .prepare(
        `SELECT ${KEY_COLUMNS} FROM api_keys ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY created_at DESC, id DESC LIMIT ?`
      )
      .all(...args, query.limit) as unknown as KeyRow<number>[]
    return rows.map(toKey)
  }

  async revoke(id: string, at: number, audit: (revoked: ApiKeyRecord) => AuditEntry): Promise<ApiKeyRecord | undefined> {
    return this.#change(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`, [at, id], audit)
  }

  async update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined> {
    const fields = changedValues(changes)
    // `SET id = id` leaves the key as it is (and still audits the request) when nothing is given.
    const set = fields.length === 0 ? 'id = id' : fields.map(([field]) => `${CHANGED_COLUMNS[field]} = ?`).join(', ')
    return inTransaction(this.#db, () => {
      const before = this.#get(id)
      if (before === undefined || before.revokedAt !== null) return undefined
      const sql = `UPDATE api_keys SET ${set} WHERE id = ? RETURNING ${KEY_COLUMNS}`
      const after = toKey(this.#db.prepare(sql).get(...fields.map(([, value]) => value), id) as unknown as KeyRow<number>)
      insertAudit(this.#db, audit(before, after))
      return after
    })
  }

  async rotate(
    id: string,
    rotation: { secretHash: string; prefix: string; previousExpiresAt: number },
    audit: (rotated: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined> {
    return this.#change(
      `UPDATE api_keys SET previous_secret_hash = secret_hash, previous_secret_expires_at = ?, secret_hash = ?, prefix = ?
       WHERE id = ? AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
      [rotation.previousExpiresAt, rotation.secretHash, rotation.prefix, id],
      audit
    )
  }

  /** One UPDATE ... RETURNING and, when it changed a key, its audit entry: one transaction. */
  #change(sql: string, args: SQLInputValue[], audit: (key: ApiKeyRecord) => AuditEntry): ApiKeyRecord | undefined {
    return inTransaction(this.#db, () => {
      const row = this.#db.prepare(sql).get(...args) as unknown as KeyRow<number> | undefined
      if (row === undefined) return undefined
      const key = toKey(row)
      insertAudit(this.#db, audit(key))
      return key
    })
  }
}
