import type { PoolClient } from 'pg'
import type { AuditEntry } from '../audit/types.ts'
import type { KeyPageQuery } from '../keys/page.ts'
import { CHANGED_COLUMNS, changedValues, keyFromRow, scopesText, type KeyRow } from '../keys/row.ts'
import type { ApiKeyRecord, KeyChanges, KeyMatch, KeyStore } from '../keys/types.ts'
import { insertAudit } from './audit.ts'
import type { PostgresPool } from './pool.ts'

// Times are TIMESTAMPTZ in the table (readable by an operator) and Unix milliseconds in the
// record; both conversions are exact integer arithmetic, no floating point.
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::int8 AS ${column}`
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const KEY_COLUMNS =
  `id, prefix, name, plan, per_minute, per_day, ${ms('created_at')}, ${ms('expires_at')}, ${ms('revoked_at')}, ` +
  `${ms('previous_secret_expires_at')}, scopes`

// Limits and millisecond times were safe integers when written, so Number() is exact here.
const toKey = (row: KeyRow<string>): ApiKeyRecord => keyFromRow(row, Number)

const text = (value: number | null) => (value === null ? null : String(value))

/** The WHERE clauses of a page of keys, their values pushed onto `args` (numbered from 1). */
function pageFilter(query: KeyPageQuery, args: unknown[]): string[] {
  const where: string[] = []
  const add = (clause: (p: string) => string, value?: unknown) => {
    if (value !== undefined) args.push(value)
    where.push(clause(`$${args.length}`))
  }
  const { search, status, now } = query
  if (search !== undefined)
    add((p) => `(strpos(lower(id), ${p}) > 0 OR strpos(lower(prefix), ${p}) > 0 OR strpos(lower(name), ${p}) > 0)`, search)
  if (query.plan !== undefined) add((p) => `plan = ${p}`, query.plan)
  if (status === 'live') add((p) => `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${fromMs(p)})`, String(now))
  if (status === 'revoked') add(() => 'revoked_at IS NOT NULL')
  if (status === 'expired') add((p) => `revoked_at IS NULL AND expires_at <= ${fromMs(p)}`, String(now))
  if (query.onlyIds !== undefined) add((p) => `id = ANY(${p}::text[])`, query.onlyIds)
  if (query.exceptIds !== undefined) add((p) => `NOT (id = ANY(${p}::text[]))`, query.exceptIds)
  if (query.before !== undefined) {
    args.push(String(query.before.createdAt), query.before.id)
    where.push(`(created_at, id) < (${fromMs(`$${args.length - 1}`)}, $${args.length})`)
  }
  return where
}

/** One UPDATE ... RETURNING on `client` and, when it changed a key, its audit entry. */
async function change(
  client: PoolClient,
  sql: string,
  args: unknown[],
  audit: (key: ApiKeyRecord) => AuditEntry
): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<KeyRow<string>>(sql, args)
  if (rows[0] === undefined) return undefined
  const key = toKey(rows[0])
  await insertAudit(client, audit(key))
  return key
}

export class PostgresKeys implements KeyStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry): Promise<void> {
    await this.#db.transaction(async (client) => {
      await client.query(
        `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at, scopes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${fromMs('$8')}, ${fromMs('$9')}, ${fromMs('$10')}, $11)`,
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
          text(key.revokedAt),
          scopesText(key.scopes)
        ]
      )
      await insertAudit(client, audit)
    })
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

  async page(query: KeyPageQuery): Promise<ApiKeyRecord[]> {
    const args: unknown[] = []
    const where = pageFilter(query, args)
    args.push(query.limit)
    const rows = await this.#db.query<KeyRow<string>>(
      `SELECT ${KEY_COLUMNS} FROM api_keys ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
       ORDER BY created_at DESC, id DESC LIMIT $${args.length}`,
      args
    )
    return rows.map(toKey)
  }

  async revoke(id: string, at: number, audit: (revoked: ApiKeyRecord) => AuditEntry): Promise<ApiKeyRecord | undefined> {
    const sql = `UPDATE api_keys SET revoked_at = ${fromMs('$1')} WHERE id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`
    return this.#db.transaction((client) => change(client, sql, [String(at), id], audit))
  }

  async update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined> {
    const fields = changedValues(changes)
    const set = fields.map(([field], i) => `${CHANGED_COLUMNS[field]} = ${field === 'expiresAt' ? fromMs(`$${i + 2}`) : `$${i + 2}`}`)
    // `SET id = id` leaves the key as it is (and still audits the request) when nothing is given.
    const sql = `UPDATE api_keys SET ${set.length === 0 ? 'id = id' : set.join(', ')} WHERE id = $1 RETURNING ${KEY_COLUMNS}`
    return this.#db.transaction(async (client) => {
      // Locked until the transaction ends: the audit's "from" is what this update changed.
      const { rows } = await client.query<KeyRow<string>>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [id])
      if (rows[0] === undefined || rows[0].revoked_at !== null) return undefined
      const before = toKey(rows[0])
      const args = [id, ...fields.map(([, value]) => (typeof value === 'number' ? String(value) : value))]
      return change(client, sql, args, (after) => audit(before, after))
    })
  }

  async rotate(
    id: string,
    rotation: { secretHash: string; prefix: string; previousExpiresAt: number },
    audit: (rotated: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined> {
    const sql = `UPDATE api_keys SET previous_secret_hash = secret_hash, previous_secret_expires_at = ${fromMs('$2')}, secret_hash = $3,
       prefix = $4 WHERE id = $1 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`
    const args = [id, String(rotation.previousExpiresAt), rotation.secretHash, rotation.prefix]
    return this.#db.transaction((client) => change(client, sql, args, audit))
  }
}
