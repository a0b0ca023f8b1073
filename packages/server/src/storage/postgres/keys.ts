import type { PoolClient } from 'pg'
import type { AuditEntry } from '../audit/types.ts'
import type { KeyPageQuery } from '../keys/page.ts'
import {
  CHANGED_COLUMNS,
  changedValues,
  COUNTER_OF_KEY,
  keyColumns,
  keyFromRow,
  KEYS_WITH_CUSTOMERS,
  scopesText,
  splitChanges,
  type KeyRow
} from '../keys/row.ts'
import type { ApiKeyRecord, KeyChanges, KeyMatch, KeyStore, NewCustomer } from '../keys/types.ts'
import { insertAudit } from './audit.ts'
import { adoptKeys, insertCustomer, setCustomerFields } from './customers.ts'
import type { PostgresPool } from './pool.ts'

// Times are TIMESTAMPTZ in the table (readable by an operator) and Unix milliseconds in the
// record; both conversions are exact integer arithmetic, no floating point.
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const KEY_COLUMNS = keyColumns((column, alias) => `(extract(epoch FROM ${column}) * 1000)::int8 AS ${alias}`)
const SELECT_KEYS = `SELECT ${KEY_COLUMNS} FROM ${KEYS_WITH_CUSTOMERS}`

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
    add((p) => `(strpos(lower(k.id), ${p}) > 0 OR strpos(lower(k.prefix), ${p}) > 0 OR strpos(lower(k.name), ${p}) > 0)`, search)
  if (query.plan !== undefined) add((p) => `coalesce(c.plan, k.plan) = ${p}`, query.plan)
  if (query.customerId !== undefined) add((p) => `k.customer_id = ${p}`, query.customerId)
  if (status === 'live') add((p) => `k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${fromMs(p)})`, String(now))
  if (status === 'revoked') add(() => 'k.revoked_at IS NOT NULL')
  if (status === 'expired') add((p) => `k.revoked_at IS NULL AND k.expires_at <= ${fromMs(p)}`, String(now))
  if (query.onlyCounters !== undefined) add((p) => `${COUNTER_OF_KEY} = ANY(${p}::text[])`, query.onlyCounters)
  if (query.exceptCounters !== undefined) add((p) => `NOT (${COUNTER_OF_KEY} = ANY(${p}::text[]))`, query.exceptCounters)
  if (query.before !== undefined) {
    args.push(String(query.before.createdAt), query.before.id)
    where.push(`(k.created_at, k.id) < (${fromMs(`$${args.length - 1}`)}, $${args.length})`)
  }
  return where
}

/** The key with this id as `client` sees it, locked until the transaction ends when `lock`. */
async function keyOn(client: PoolClient, id: string, lock = false): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<KeyRow<string>>(`${SELECT_KEYS} WHERE k.id = $1 ${lock ? 'FOR UPDATE OF k' : ''}`, [id])
  return rows[0] === undefined ? undefined : toKey(rows[0])
}

/** One UPDATE ... RETURNING id on `client` and, when it changed a key, its audit entry. */
async function change(
  client: PoolClient,
  sql: string,
  args: unknown[],
  audit: (key: ApiKeyRecord) => AuditEntry
): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<{ id: string }>(sql, args)
  if (rows[0] === undefined) return undefined
  const key = (await keyOn(client, rows[0].id))!
  await insertAudit(client, audit(key))
  return key
}

export class PostgresKeys implements KeyStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry, customer?: NewCustomer): Promise<void> {
    await this.#db.transaction(async (client) => {
      if (customer !== undefined) {
        await insertCustomer(client, customer.record)
        await insertAudit(client, customer.audit)
      }
      await client.query(
        `INSERT INTO api_keys (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at, scopes,
           customer_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${fromMs('$8')}, ${fromMs('$9')}, ${fromMs('$10')}, $11, $12)`,
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
          scopesText(key.scopes),
          key.customerId
        ]
      )
      await insertAudit(client, audit)
    })
  }

  async findByHash(secretHash: string): Promise<KeyMatch | undefined> {
    const [row] = await this.#db.query<KeyRow<string> & { secret_stops_at: string | null }>(
      `SELECT ${KEY_COLUMNS},
         CASE WHEN k.secret_hash = $1 THEN NULL ELSE (extract(epoch FROM k.previous_secret_expires_at) * 1000)::int8 END AS secret_stops_at
       FROM ${KEYS_WITH_CUSTOMERS} WHERE k.secret_hash = $1 OR k.previous_secret_hash = $1`,
      [secretHash]
    )
    return row === undefined
      ? undefined
      : { ...toKey(row), secretStopsAt: row.secret_stops_at === null ? null : Number(row.secret_stops_at) }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.#db.query<KeyRow<string>>(`${SELECT_KEYS} WHERE k.id = $1`, [id])
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.#db.query<KeyRow<string>>(`${SELECT_KEYS} ORDER BY k.created_at, k.id`)).map(toKey)
  }

  async page(query: KeyPageQuery): Promise<ApiKeyRecord[]> {
    const args: unknown[] = []
    const where = pageFilter(query, args)
    args.push(query.limit)
    const rows = await this.#db.query<KeyRow<string>>(
      `${SELECT_KEYS} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
       ORDER BY k.created_at DESC, k.id DESC LIMIT $${args.length}`,
      args
    )
    return rows.map(toKey)
  }

  async revoke(id: string, at: number, audit: (revoked: ApiKeyRecord) => AuditEntry): Promise<ApiKeyRecord | undefined> {
    const sql = `UPDATE api_keys SET revoked_at = ${fromMs('$1')} WHERE id = $2 AND revoked_at IS NULL RETURNING id`
    return this.#db.transaction((client) => change(client, sql, [String(at), id], audit))
  }

  async update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry[]
  ): Promise<ApiKeyRecord | undefined> {
    const { own, customer } = splitChanges(changes)
    const fields = changedValues(own)
    const set = fields.map(([field], i) => `${CHANGED_COLUMNS[field]} = ${field === 'expiresAt' ? fromMs(`$${i + 2}`) : `$${i + 2}`}`)
    return this.#db.transaction(async (client) => {
      // A key the previous release made has no customer yet: a change to its plan needs one.
      if (Object.keys(customer).length > 0) await adoptKeys(client)
      // Locked until the transaction ends: the audit's "from" is what this update changed.
      const before = await keyOn(client, id, true)
      if (before === undefined || before.revokedAt !== null) return undefined
      if (fields.length > 0)
        await client.query(`UPDATE api_keys SET ${set.join(', ')} WHERE id = $1`, [
          id,
          ...fields.map(([, value]) => (typeof value === 'number' ? String(value) : value))
        ])
      if (before.customerId !== null) await setCustomerFields(client, before.customerId, customer)
      const after = (await keyOn(client, id))!
      for (const entry of audit(before, after)) await insertAudit(client, entry)
      return after
    })
  }

  async rotate(
    id: string,
    rotation: { secretHash: string; prefix: string; previousExpiresAt: number },
    audit: (rotated: ApiKeyRecord) => AuditEntry
  ): Promise<ApiKeyRecord | undefined> {
    const sql = `UPDATE api_keys SET previous_secret_hash = secret_hash, previous_secret_expires_at = ${fromMs('$2')}, secret_hash = $3,
       prefix = $4 WHERE id = $1 AND revoked_at IS NULL RETURNING id`
    const args = [id, String(rotation.previousExpiresAt), rotation.secretHash, rotation.prefix]
    return this.#db.transaction((client) => change(client, sql, args, audit))
  }
}
