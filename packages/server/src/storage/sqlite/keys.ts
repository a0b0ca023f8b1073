import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
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
import { inTransaction, insertAudit } from './audit.ts'
import { adoptKeys, insertCustomer, registerFold, setCustomerFields } from './customers.ts'

const KEY_COLUMNS = keyColumns((column, alias) => `${column} AS ${alias}`)
const SELECT_KEYS = `SELECT ${KEY_COLUMNS} FROM ${KEYS_WITH_CUSTOMERS}`

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
    add('(instr(lower(k.id), ?) > 0 OR instr(lower(k.prefix), ?) > 0 OR instr(as_fold(k.name), ?) > 0)', search, search, search)
  if (query.plan !== undefined) add('coalesce(c.plan, k.plan) = ?', query.plan)
  if (query.customerId !== undefined) add('k.customer_id = ?', query.customerId)
  if (status === 'live') add('k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?)', now)
  if (status === 'revoked') add('k.revoked_at IS NOT NULL')
  if (status === 'expired') add('k.revoked_at IS NULL AND k.expires_at <= ?', now)
  if (query.onlyCounters !== undefined) add(`${COUNTER_OF_KEY} IN (SELECT value FROM json_each(?))`, JSON.stringify(query.onlyCounters))
  if (query.exceptCounters !== undefined)
    add(`${COUNTER_OF_KEY} NOT IN (SELECT value FROM json_each(?))`, JSON.stringify(query.exceptCounters))
  if (query.before !== undefined) add('(k.created_at, k.id) < (?, ?)', query.before.createdAt, query.before.id)
  return [where, args]
}

/** Keys in the embedded file; each change and its audit entry in one transaction on the writing connection. */
export class SqliteKeys implements KeyStore {
  readonly #db: DatabaseSync
  // Prepared on first use: the table exists only once the migrations have run.
  #byHash: StatementSync | undefined

  constructor(db: DatabaseSync) {
    this.#db = db
    registerFold(db)
  }

  async create(key: ApiKeyRecord, secretHash: string, audit: AuditEntry, customer?: NewCustomer): Promise<void> {
    inTransaction(this.#db, () => {
      if (customer !== undefined) {
        insertCustomer(this.#db, customer.record)
        insertAudit(this.#db, customer.audit)
      }
      this.#db
        .prepare(
          `INSERT INTO api_keys (id, secret_hash, prefix, name, customer_id, plan, per_minute, per_day, created_at, expires_at,
             revoked_at, scopes)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        )
        .run(
          key.id,
          secretHash,
          key.prefix,
          key.name,
          key.customerId,
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
      `SELECT ${KEY_COLUMNS}, CASE WHEN k.secret_hash = :hash THEN NULL ELSE k.previous_secret_expires_at END AS secret_stops_at
       FROM ${KEYS_WITH_CUSTOMERS} WHERE k.secret_hash = :hash OR k.previous_secret_hash = :hash`
    )
    const row = this.#byHash.get({ hash: secretHash }) as unknown as (KeyRow<number> & { secret_stops_at: number | null }) | undefined
    return row === undefined ? undefined : { ...toKey(row), secretStopsAt: row.secret_stops_at }
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.#get(id)
  }

  #get(id: string): ApiKeyRecord | undefined {
    const row = this.#db.prepare(`${SELECT_KEYS} WHERE k.id = ?`).get(id) as unknown as KeyRow<number> | undefined
    return row === undefined ? undefined : toKey(row)
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = this.#db.prepare(`${SELECT_KEYS} ORDER BY k.created_at, k.id`).all() as unknown as KeyRow<number>[]
    return rows.map(toKey)
  }

  async page(query: KeyPageQuery): Promise<ApiKeyRecord[]> {
    const [where, args] = pageFilter(query)
    const rows = this.#db
      .prepare(`${SELECT_KEYS} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY k.created_at DESC, k.id DESC LIMIT ?`)
      .all(...args, query.limit) as unknown as KeyRow<number>[]
    return rows.map(toKey)
  }

  async revoke(id: string, at: number, audit: (revoked: ApiKeyRecord) => AuditEntry): Promise<ApiKeyRecord | undefined> {
    return this.#change('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING id', [at, id], audit)
  }

  async update(
    id: string,
    changes: KeyChanges,
    audit: (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry[]
  ): Promise<ApiKeyRecord | undefined> {
    const { own, customer } = splitChanges(changes)
    const fields = changedValues(own)
    return inTransaction(this.#db, () => {
      // A key the previous release made has no customer yet: a change to its plan needs one.
      if (Object.keys(customer).length > 0) adoptKeys(this.#db)
      const before = this.#get(id)
      if (before === undefined || before.revokedAt !== null) return undefined
      if (fields.length > 0)
        this.#db
          .prepare(`UPDATE api_keys SET ${fields.map(([field]) => `${CHANGED_COLUMNS[field]} = ?`).join(', ')} WHERE id = ?`)
          .run(...fields.map(([, value]) => value), id)
      if (before.customerId !== null) setCustomerFields(this.#db, before.customerId, customer)
      const after = this.#get(id)!
      for (const entry of audit(before, after)) insertAudit(this.#db, entry)
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
       WHERE id = ? AND revoked_at IS NULL RETURNING id`,
      [rotation.previousExpiresAt, rotation.secretHash, rotation.prefix, id],
      audit
    )
  }

  /** One UPDATE ... RETURNING id and, when it changed a key, its audit entry: one transaction. */
  #change(sql: string, args: SQLInputValue[], audit: (key: ApiKeyRecord) => AuditEntry): ApiKeyRecord | undefined {
    return inTransaction(this.#db, () => {
      const row = this.#db.prepare(sql).get(...args) as { id: string } | undefined
      if (row === undefined) return undefined
      const key = this.#get(row.id)!
      insertAudit(this.#db, audit(key))
      return key
    })
  }
}
