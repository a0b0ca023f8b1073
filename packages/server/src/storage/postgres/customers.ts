import type { ClientBase, PoolClient } from 'pg'
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
import { insertAudit } from './audit.ts'
import type { PostgresPool } from './pool.ts'

// created_at is TIMESTAMPTZ in the table and Unix milliseconds in the record, converted exactly.
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`
const SELECT_CUSTOMERS = `SELECT id, name, external_id, plan, per_minute, per_day, per_month, counter_id,
  (extract(epoch FROM created_at) * 1000)::int8 AS created_at,
  (SELECT count(*) FROM api_keys k WHERE k.customer_id = customers.id AND k.revoked_at IS NULL) AS keys FROM customers`

// Numbers and millisecond times were safe integers when written, so Number() is exact here.
const toCustomer = (row: CustomerRow<string>): CustomerWithKeys => customerFromRow(row, Number)
const text = (value: string | number | null) => (typeof value === 'number' ? String(value) : value)
/** Another transaction took the external id between this one's check and its write. */
const externalIdRace = (error: unknown) => (error as { constraint?: unknown }).constraint === 'customers_external_id_key'

/** Inserts `customer` inside the caller's transaction on `client`; false (nothing written) when its external id is taken. */
export async function insertCustomer(client: PoolClient, customer: CustomerRecord): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO customers (id, name, external_id, plan, per_minute, per_day, per_month, counter_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${fromMs('$9')}) ON CONFLICT (external_id) DO NOTHING`,
    [
      customer.id,
      customer.name,
      customer.externalId,
      customer.plan,
      text(customer.perMinute),
      text(customer.perDay),
      text(customer.perMonth),
      customer.counterId,
      String(customer.createdAt)
    ]
  )
  return rowCount === 1
}

/** Sets `changes` on the customer and its plan and numbers on its keys, inside the caller's transaction. */
export async function setCustomerFields(client: PoolClient, id: string, changes: CustomerChanges): Promise<void> {
  const assign = (fields: Array<[string, unknown]>) => fields.map(([column], i) => `${column} = $${i + 2}`).join(', ')
  const fields = customerChangedValues(changes)
  if (fields.length > 0) await client.query(`UPDATE customers SET ${assign(fields)} WHERE id = $1`, [id, ...fields.map(([, v]) => text(v))])
  const mirrored = mirroredOnKeys(changes)
  if (mirrored.length > 0)
    await client.query(`UPDATE api_keys SET ${assign(mirrored)} WHERE customer_id = $1`, [id, ...mirrored.map(([, v]) => text(v))])
}

/** Gives each key without a customer one of its own, inside the caller's transaction; returns how many it made. */
export async function adoptKeys(client: ClientBase): Promise<number> {
  const { rowCount } = await client.query(ADOPT_KEYS[0])
  await client.query(ADOPT_KEYS[1])
  return rowCount ?? 0
}

/** Customers in PostgreSQL (migration 9); each change and its audit entry in one transaction on one connection. */
export class PostgresCustomers implements CustomerStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async create(customer: CustomerRecord, audit: AuditEntry): Promise<boolean> {
    const creating = this.#db.transaction(async (client) => {
      if (!(await insertCustomer(client, customer))) return false
      await insertAudit(client, audit)
      return true
    })
    return creating.catch((error: unknown) => {
      if (externalIdRace(error)) return false
      throw error
    })
  }

  async get(id: string): Promise<CustomerWithKeys | undefined> {
    const [row] = await this.#db.query<CustomerRow<string>>(`${SELECT_CUSTOMERS} WHERE id = $1`, [id])
    return row === undefined ? undefined : toCustomer(row)
  }

  async byCounterIds(counterIds: readonly string[]): Promise<CustomerWithKeys[]> {
    if (counterIds.length === 0) return []
    const rows = await this.#db.query<CustomerRow<string>>(`${SELECT_CUSTOMERS} WHERE counter_id = ANY($1::text[])`, [counterIds])
    return rows.map(toCustomer)
  }

  async page(query: CustomerPageQuery): Promise<CustomerWithKeys[]> {
    const where: string[] = []
    const args: unknown[] = []
    const add = (clause: (p: string) => string, value: unknown) => {
      args.push(value)
      where.push(clause(`$${args.length}`))
    }
    if (query.search !== undefined)
      add((p) => `(strpos(lower(id), ${p}) > 0 OR strpos(lower(name), ${p}) > 0 OR strpos(lower(external_id), ${p}) > 0)`, query.search)
    if (query.plan !== undefined) add((p) => `plan = ${p}`, query.plan)
    if (query.before !== undefined) {
      args.push(String(query.before.createdAt), query.before.id)
      where.push(`(created_at, id) < (${fromMs(`$${args.length - 1}`)}, $${args.length})`)
    }
    args.push(query.limit)
    const rows = await this.#db.query<CustomerRow<string>>(
      `${SELECT_CUSTOMERS} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
       ORDER BY created_at DESC, id DESC LIMIT $${args.length}`,
      args
    )
    return rows.map(toCustomer)
  }

  async update(
    id: string,
    changes: CustomerChanges,
    audit: (before: CustomerRecord, after: CustomerRecord) => AuditEntry
  ): Promise<CustomerUpdate> {
    const updating = this.#db.transaction(async (client): Promise<CustomerUpdate> => {
      // Locked until the transaction ends: the audit's "from" is what this update changed.
      const { rows } = await client.query<CustomerRow<string>>(`${SELECT_CUSTOMERS} WHERE id = $1 FOR UPDATE`, [id])
      if (rows[0] === undefined) return { outcome: 'missing' }
      const before = toCustomer(rows[0])
      if (typeof changes.externalId === 'string') {
        const taken = await client.query('SELECT 1 FROM customers WHERE external_id = $1 AND id <> $2', [changes.externalId, id])
        if (taken.rows.length > 0) return { outcome: 'external_id_taken' }
      }
      await setCustomerFields(client, id, changes)
      const after = toCustomer((await client.query<CustomerRow<string>>(`${SELECT_CUSTOMERS} WHERE id = $1`, [id])).rows[0]!)
      await insertAudit(client, audit(before, after))
      return { outcome: 'updated', before, after }
    })
    return updating.catch((error: unknown): CustomerUpdate => {
      if (externalIdRace(error)) return { outcome: 'external_id_taken' }
      throw error
    })
  }

  async adoptKeys(): Promise<number> {
    return this.#db.transaction(adoptKeys)
  }
}
