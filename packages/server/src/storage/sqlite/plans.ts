import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { AuditEntry } from '../audit/types.ts'
import type { PlanChanges, PlanDeletion, PlanRecord, PlanStore, PlanUpdate, PlanWithUse } from '../plans/types.ts'
import { inTransaction, insertAudit } from './audit.ts'
import { adoptKeys } from './customers.ts'

const PLAN_COLUMNS = 'id, name, per_minute, per_day, per_month, created_at'

interface PlanRow {
  id: string
  name: string
  per_minute: number | null
  per_day: number | null
  per_month: number | null
  created_at: number
}

const toPlan = (row: PlanRow): PlanRecord => ({
  id: row.id,
  name: row.name,
  perMinute: row.per_minute,
  perDay: row.per_day,
  perMonth: row.per_month,
  createdAt: row.created_at
})

// customers_plan answers the count from the index.
const WITH_USE = `SELECT ${PLAN_COLUMNS}, (SELECT count(*) FROM customers WHERE customers.plan = plans.id) AS customers FROM plans`

/** Plans in the embedded file (migration 7); each change and its audit entry in one transaction on the writing connection. */
export class SqlitePlans implements PlanStore {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async list(): Promise<PlanWithUse[]> {
    // By id as bytes (SQLite's BINARY collation), as PostgreSQL's list orders them too.
    const rows = this.#db.prepare(`${WITH_USE} ORDER BY id`).all() as unknown as Array<PlanRow & { customers: number }>
    return rows.map((row) => ({ ...toPlan(row), customers: row.customers }))
  }

  async get(id: string): Promise<PlanWithUse | undefined> {
    const row = this.#db.prepare(`${WITH_USE} WHERE id = ?`).get(id) as unknown as (PlanRow & { customers: number }) | undefined
    return row === undefined ? undefined : { ...toPlan(row), customers: row.customers }
  }

  async create(plan: PlanRecord, audit: AuditEntry): Promise<boolean> {
    return inTransaction(this.#db, () => {
      const { changes } = this.#db
        .prepare(
          'INSERT INTO plans (id, name, per_minute, per_day, per_month, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING'
        )
        .run(plan.id, plan.name, plan.perMinute, plan.perDay, plan.perMonth, plan.createdAt)
      if (changes === 0) return false
      insertAudit(this.#db, audit)
      return true
    })
  }

  async update(id: string, changes: PlanChanges, audit: (before: PlanRecord, after: PlanRecord) => AuditEntry): Promise<PlanUpdate> {
    const set: string[] = []
    const args: SQLInputValue[] = []
    if (changes.name !== undefined) {
      set.push('name = ?')
      args.push(changes.name)
    }
    if (changes.limits !== undefined) {
      set.push('per_minute = ?', 'per_day = ?', 'per_month = ?')
      args.push(changes.limits?.perMinute ?? null, changes.limits?.perDay ?? null, changes.limits?.perMonth ?? null)
    }
    return inTransaction(this.#db, (): PlanUpdate => {
      const before = this.#get(id)
      if (before === undefined) return { outcome: 'missing' }
      if (changes.limits === null && before.perMinute !== null) {
        const customers = this.#count('plan = ? AND (per_minute IS NULL OR per_day IS NULL)', id)
        if (customers > 0) return { outcome: 'customers_without_limits', customers }
      }
      // `SET id = id` leaves the plan as it is (and still audits the request) when nothing is given.
      const sql = `UPDATE plans SET ${set.length === 0 ? 'id = id' : set.join(', ')} WHERE id = ? RETURNING ${PLAN_COLUMNS}`
      const after = toPlan(this.#db.prepare(sql).get(...args, id) as unknown as PlanRow)
      insertAudit(this.#db, audit(before, after))
      return { outcome: 'updated', before, after }
    })
  }

  async delete(id: string, audit: (plan: PlanRecord) => AuditEntry): Promise<PlanDeletion> {
    return inTransaction(this.#db, (): PlanDeletion => {
      const plan = this.#get(id)
      if (plan === undefined) return { outcome: 'missing' }
      const customers = this.#count('plan = ?', id)
      if (customers > 0) return { outcome: 'in_use', customers }
      this.#db.prepare('DELETE FROM plans WHERE id = ?').run(id)
      insertAudit(this.#db, audit(plan))
      return { outcome: 'deleted', plan }
    })
  }

  #get(id: string): PlanRecord | undefined {
    const row = this.#db.prepare(`SELECT ${PLAN_COLUMNS} FROM plans WHERE id = ?`).get(id) as unknown as PlanRow | undefined
    return row === undefined ? undefined : toPlan(row)
  }

  /** How many customers match `where`, once every key has one (a key the previous release made may not yet). */
  #count(where: string, ...args: SQLInputValue[]): number {
    adoptKeys(this.#db)
    const row = this.#db.prepare(`SELECT count(*) AS n FROM customers WHERE ${where}`).get(...args) as unknown as { n: number }
    return row.n
  }
}
