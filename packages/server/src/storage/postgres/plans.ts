import type { PoolClient } from 'pg'
import type { AuditEntry } from '../audit/types.ts'
import type { PlanChanges, PlanDeletion, PlanRecord, PlanStore, PlanUpdate, PlanWithUse } from '../plans/types.ts'
import { insertAudit } from './audit.ts'
import { adoptKeys } from './customers.ts'
import type { PostgresPool } from './pool.ts'

// created_at is TIMESTAMPTZ in the table and Unix milliseconds in the record, converted exactly.
const fromMs = (param: string) => `(timestamptz 'epoch' + ${param}::int8 * interval '1 millisecond')`

const PLAN_COLUMNS = 'id, name, per_minute, per_day, per_month, (extract(epoch FROM created_at) * 1000)::int8 AS created_at'

/** int8 columns (and count(*)) arrive as decimal text from this pool (pool.ts). */
interface PlanRow {
  id: string
  name: string
  per_minute: string | null
  per_day: string | null
  per_month: string | null
  created_at: string
}

// Limits and millisecond times were safe integers when written, so Number() is exact here.
const toPlan = (row: PlanRow): PlanRecord => ({
  id: row.id,
  name: row.name,
  perMinute: row.per_minute === null ? null : Number(row.per_minute),
  perDay: row.per_day === null ? null : Number(row.per_day),
  perMonth: row.per_month === null ? null : Number(row.per_month),
  createdAt: Number(row.created_at)
})

const text = (value: number | null | undefined) => (value === null || value === undefined ? null : String(value))

// customers_plan answers the count from the index. Ids compare as bytes (COLLATE "C"), so the order is SQLite's, whatever the database's collation.
const WITH_USE = `SELECT ${PLAN_COLUMNS}, (SELECT count(*) FROM customers WHERE customers.plan = plans.id) AS customers FROM plans`

const withUse = (row: PlanRow & { customers: string }): PlanWithUse => ({ ...toPlan(row), customers: Number(row.customers) })

/**
 * The plan `id`, locked until the transaction ends. FOR UPDATE conflicts with the FOR KEY SHARE
 * lock a customer's insert (or a customer's move to this plan) takes on the row its foreign key names:
 * a customer being created on the plan commits first and is then counted, or waits until this change commits.
 */
async function locked(client: PoolClient, id: string): Promise<PlanRecord | undefined> {
  const { rows } = await client.query<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM plans WHERE id = $1 FOR UPDATE`, [id])
  return rows[0] === undefined ? undefined : toPlan(rows[0])
}

/**
 * How many customers match `where`, once every key has one (a key the previous release made may
 * not yet); a statement of its own, so it sees every commit before it.
 */
async function count(client: PoolClient, where: string, id: string): Promise<number> {
  await adoptKeys(client)
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM customers WHERE ${where}`, [id])
  return Number(rows[0]?.n ?? 0)
}

/** Plans in PostgreSQL (migration 7); each change and its audit entry in one transaction on one connection. */
export class PostgresPlans implements PlanStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async list(): Promise<PlanWithUse[]> {
    return (await this.#db.query<PlanRow & { customers: string }>(`${WITH_USE} ORDER BY id COLLATE "C"`)).map(withUse)
  }

  async get(id: string): Promise<PlanWithUse | undefined> {
    const [row] = await this.#db.query<PlanRow & { customers: string }>(`${WITH_USE} WHERE id = $1`, [id])
    return row === undefined ? undefined : withUse(row)
  }

  async create(plan: PlanRecord, audit: AuditEntry): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      const { rowCount } = await client.query(
        `INSERT INTO plans (id, name, per_minute, per_day, per_month, created_at) VALUES ($1, $2, $3, $4, $5, ${fromMs('$6')})
         ON CONFLICT (id) DO NOTHING`,
        [plan.id, plan.name, text(plan.perMinute), text(plan.perDay), text(plan.perMonth), text(plan.createdAt)]
      )
      if (rowCount !== 1) return false
      await insertAudit(client, audit)
      return true
    })
  }

  async update(id: string, changes: PlanChanges, audit: (before: PlanRecord, after: PlanRecord) => AuditEntry): Promise<PlanUpdate> {
    const args: unknown[] = [id]
    const set: string[] = []
    const assign = (column: string, value: unknown) => {
      args.push(value)
      set.push(`${column} = $${args.length}`)
    }
    if (changes.name !== undefined) assign('name', changes.name)
    if (changes.limits !== undefined) {
      assign('per_minute', text(changes.limits?.perMinute))
      assign('per_day', text(changes.limits?.perDay))
      assign('per_month', text(changes.limits?.perMonth))
    }
    // `SET id = id` leaves the plan as it is (and still audits the request) when nothing is given.
    const sql = `UPDATE plans SET ${set.length === 0 ? 'id = id' : set.join(', ')} WHERE id = $1 RETURNING ${PLAN_COLUMNS}`
    return this.#db.transaction(async (client): Promise<PlanUpdate> => {
      const before = await locked(client, id)
      if (before === undefined) return { outcome: 'missing' }
      if (changes.limits === null && before.perMinute !== null) {
        const customers = await count(client, 'plan = $1 AND (per_minute IS NULL OR per_day IS NULL)', id)
        if (customers > 0) return { outcome: 'customers_without_limits', customers }
      }
      const { rows } = await client.query<PlanRow>(sql, args)
      const after = toPlan(rows[0]!)
      await insertAudit(client, audit(before, after))
      return { outcome: 'updated', before, after }
    })
  }

  async delete(id: string, audit: (plan: PlanRecord) => AuditEntry): Promise<PlanDeletion> {
    return this.#db.transaction(async (client): Promise<PlanDeletion> => {
      const plan = await locked(client, id)
      if (plan === undefined) return { outcome: 'missing' }
      const customers = await count(client, 'plan = $1', id)
      if (customers > 0) return { outcome: 'in_use', customers }
      await client.query('DELETE FROM plans WHERE id = $1', [id])
      await insertAudit(client, audit(plan))
      return { outcome: 'deleted', plan }
    })
  }
}
