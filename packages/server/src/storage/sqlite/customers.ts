import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { AuditEntry } from '../audit/types.ts'
import { ADOPT_KEYS, customerChangedValues, customerFromRow, mirroredOnKeys, type CustomerRow } from '../customers/row.ts'
import type {
  CustomerChanges,
  CustomerPageQuery,
  CustomerRecord,
  CustomerStore,
  CustomerUpdate,
  CustomerWithKeys
} from '../customers/types.ts'
import { inTransaction, insertAudit } from './audit.ts'

const SELECT_CUSTOMERS = `SELECT id, name, external_id, plan, per_minute, per_day, per_month, counter_id, created_at,
  (SELECT count(*) FROM api_keys k WHERE k.customer_id = customers.id AND k.revoked_at IS NULL) AS keys FROM customers`

const toCustomer = (row: CustomerRow<number>): CustomerWithKeys => customerFromRow(row, (value) => value)

/** SQLite's lower() folds ASCII only: names are searched in any case, as JavaScript folds them (`as_fold`). */
export function registerFold(db: DatabaseSync): void {
  db.function('as_fold', { deterministic: true }, (value) => (typeof value === 'string' ? value.toLowerCase() : value))
}

/** Inserts `customer` inside the caller's transaction. */
export function insertCustomer(db: DatabaseSync, customer: CustomerRecord): void {
  db.prepare(
    `INSERT INTO customers (id, name, external_id, plan, per_minute, per_day, per_month, counter_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
  ).run(
    customer.id,
    customer.name,
    customer.externalId,
    customer.plan,
    customer.perMinute,
    customer.perDay,
    customer.perMonth,
    customer.counterId,
    customer.createdAt
  )
}

/** Sets `changes` on the customer and its plan and numbers on its keys, inside the caller's transaction. */
export function setCustomerFields(db: DatabaseSync, id: string, changes: CustomerChanges): void {
  const assign = (fields: Array<[string, SQLInputValue]>) => fields.map(([column]) => `${column} = ?`).join(', ')
  const fields = customerChangedValues(changes)
  if (fields.length > 0) db.prepare(`UPDATE customers SET ${assign(fields)} WHERE id = ?`).run(...fields.map(([, v]) => v), id)
  const mirrored = mirroredOnKeys(changes)
  if (mirrored.length > 0)
    db.prepare(`UPDATE api_keys SET ${assign(mirrored)} WHERE customer_id = ?`).run(...mirrored.map(([, v]) => v), id)
}

/** Gives each key without a customer one of its own, inside the caller's transaction; returns how many it made. */
export function adoptKeys(db: DatabaseSync): number {
  const made = Number(db.prepare(ADOPT_KEYS[0]).run().changes)
  db.prepare(ADOPT_KEYS[1]).run()
  return made
}

/** Customers in the embedded file (migration 9); each change and its audit entry in one transaction. */
export class SqliteCustomers implements CustomerStore {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
    registerFold(db)
  }

  async create(customer: CustomerRecord, audit: AuditEntry): Promise<boolean> {
    return inTransaction(this.#db, () => {
      if (customer.externalId !== null && this.#externalIdTaken(customer.externalId, null)) return false
      insertCustomer(this.#db, customer)
      insertAudit(this.#db, audit)
      return true
    })
  }

  async get(id: string): Promise<CustomerWithKeys | undefined> {
    return this.#get(id)
  }

  async byCounterIds(counterIds: readonly string[]): Promise<CustomerWithKeys[]> {
    if (counterIds.length === 0) return []
    const sql = `${SELECT_CUSTOMERS} WHERE counter_id IN (SELECT value FROM json_each(?))`
    return (this.#db.prepare(sql).all(JSON.stringify(counterIds)) as unknown as CustomerRow<number>[]).map(toCustomer)
  }

  async page(query: CustomerPageQuery): Promise<CustomerWithKeys[]> {
    const where: string[] = []
    const args: SQLInputValue[] = []
    const { search, plan, before } = query
    if (search !== undefined) {
      where.push('(instr(lower(id), ?) > 0 OR instr(as_fold(name), ?) > 0 OR instr(as_fold(external_id), ?) > 0)')
      args.push(search, search, search)
    }
    if (plan !== undefined) {
      where.push('plan = ?')
      args.push(plan)
    }
    if (before !== undefined) {
      where.push('(created_at, id) < (?, ?)')
      args.push(before.createdAt, before.id)
    }
    const sql = `${SELECT_CUSTOMERS} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY created_at DESC, id DESC LIMIT ?`
    return (this.#db.prepare(sql).all(...args, query.limit) as unknown as CustomerRow<number>[]).map(toCustomer)
  }

  async update(
    id: string,
    changes: CustomerChanges,
    audit: (before: CustomerRecord, after: CustomerRecord) => AuditEntry
  ): Promise<CustomerUpdate> {
    return inTransaction(this.#db, (): CustomerUpdate => {
      const before = this.#get(id)
      if (before === undefined) return { outcome: 'missing' }
      if (changes.externalId !== undefined && changes.externalId !== null && this.#externalIdTaken(changes.externalId, id))
        return { outcome: 'external_id_taken' }
      setCustomerFields(this.#db, id, changes)
      const after = this.#get(id)!
      insertAudit(this.#db, audit(before, after))
      return { outcome: 'updated', before, after }
    })
  }

  async adoptKeys(): Promise<number> {
    return inTransaction(this.#db, () => adoptKeys(this.#db))
  }

  #get(id: string): CustomerWithKeys | undefined {
    const row = this.#db.prepare(`${SELECT_CUSTOMERS} WHERE id = ?`).get(id) as unknown as CustomerRow<number> | undefined
    return row === undefined ? undefined : toCustomer(row)
  }

  #externalIdTaken(externalId: string, except: string | null): boolean {
    return this.#db.prepare('SELECT 1 FROM customers WHERE external_id = ? AND id IS NOT ?').get(externalId, except) !== undefined
  }
}
