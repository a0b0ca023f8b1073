import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { GRANULARITIES, GRANULARITY_MS, type Granularity } from '@animal-store/contract'
import type {
  CustomerPeriod,
  CustomerUsageTotal,
  PeriodCursor,
  KeyUsageTotal,
  TopKeysOrder,
  UsageCounts,
  UsageDelta,
  UsageRow,
  UsageSpan,
  UsageStore
} from '../usage/types.ts'
import { countsOf } from '../usage/counts.ts'
import { withoutFsync } from './transaction.ts'

// The four counts: their columns, then as UsageCounts names them, then summed over the rows of `u`.
const COLUMNS = 'allowed, rate_limited, banned, quota_exceeded'
const NAMED = 'allowed, rate_limited AS rateLimited, banned, quota_exceeded AS quotaExceeded'
const sums = (u: string) =>
  `sum(${u}allowed) AS allowed, sum(${u}rate_limited) AS rateLimited, sum(${u}banned) AS banned, sum(${u}quota_exceeded) AS quotaExceeded`
const addCounts = (t: string) =>
  COLUMNS.split(', ')
    .map((c) => `${c} = ${t}.${c} + excluded.${c}`)
    .join(', ')
const ANY_COUNT = 'sum(u.allowed) + sum(u.rate_limited) + sum(u.banned) + sum(u.quota_exceeded) > 0'

const MEASURE: Record<TopKeysOrder, string> = { allowed: 'sum(allowed)', refused: 'sum(rate_limited) + sum(banned) + sum(quota_exceeded)' }
const SPAN_ROWS = `SELECT key_id, ${COLUMNS} FROM usage_by_key WHERE granularity = ? AND start >= ? AND start < ?`

const spanArgs = (span: UsageSpan) => [span.granularity, span.from, span.to] as const
// node:sqlite's rows have a null prototype: copied into plain objects (countsOf).
const toRow = (row: UsageRow): UsageRow => ({ start: row.start, ...countsOf(row) })

/** Every key's deltas summed per granularity and bucket: the rows of usage_totals one flush adds to. */
function totalsOf(deltas: readonly UsageDelta[]): Map<string, { granularity: Granularity; start: number } & UsageCounts> {
  const totals = new Map<string, { granularity: Granularity; start: number } & UsageCounts>()
  for (const delta of deltas) {
    for (const granularity of GRANULARITIES) {
      const start = delta.minuteStart - (delta.minuteStart % GRANULARITY_MS[granularity])
      const id = `${granularity} ${start}`
      const total = totals.get(id) ?? { granularity, start, allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 0 }
      total.allowed += delta.allowed
      total.rateLimited += delta.rateLimited
      total.banned += delta.banned
      total.quotaExceeded += delta.quotaExceeded
      totals.set(id, total)
    }
  }
  return totals
}

/** Usage history in the embedded file: statements on the writing connection, a flush in one transaction. */
export class SqliteUsage implements UsageStore {
  readonly #db: DatabaseSync
  readonly #addKey: StatementSync
  readonly #addTotal: StatementSync
  readonly #touch: StatementSync
  readonly #keyBuckets: StatementSync
  readonly #totalBuckets: StatementSync
  readonly #lastUsed: StatementSync
  readonly #pruneKeys: StatementSync
  readonly #pruneTotals: StatementSync
  readonly #synchronous: StatementSync
  readonly #customerBuckets: StatementSync
  readonly #customerPeriods: StatementSync
  /** By group, span count and order: a top-keys query has one range scan per span. */
  readonly #top = new Map<string, StatementSync>()

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#synchronous = db.prepare('PRAGMA synchronous')
    this.#addKey = db.prepare(`INSERT INTO usage_by_key (granularity, key_id, start, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (granularity, key_id, start) DO UPDATE SET ${addCounts('usage_by_key')}`)
    this.#addTotal = db.prepare(`INSERT INTO usage_totals (granularity, start, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (granularity, start) DO UPDATE SET ${addCounts('usage_totals')}`)
    this.#touch = db.prepare(`INSERT INTO key_last_used (key_id, minute_start) VALUES (?, ?)
      ON CONFLICT (key_id) DO UPDATE SET minute_start = max(key_last_used.minute_start, excluded.minute_start)`)
    this.#keyBuckets = db.prepare(`SELECT start, ${NAMED} FROM usage_by_key
      WHERE granularity = ? AND key_id = ? AND start >= ? AND start < ? ORDER BY start`)
    this.#customerBuckets = db.prepare(`SELECT u.start, ${sums('u.')}
      FROM api_keys k JOIN usage_by_key u ON u.granularity = ? AND u.key_id = k.id AND u.start >= ? AND u.start < ?
      WHERE k.customer_id = ? GROUP BY u.start ORDER BY u.start`)
    // The cursor (start, customer) is `(-1, '')` for the first page: before every bucket.
    this.#customerPeriods = db.prepare(`SELECT u.start, k.customer_id AS customerId, c.external_id AS externalId, c.plan, ${sums('u.')}
      FROM usage_by_key u JOIN api_keys k ON k.id = u.key_id JOIN customers c ON c.id = k.customer_id
      WHERE u.granularity = ? AND u.start >= ? AND u.start < ? AND (u.start, k.customer_id) > (?, ?)
      GROUP BY u.start, k.customer_id, c.external_id, c.plan HAVING ${ANY_COUNT}
      ORDER BY u.start, k.customer_id LIMIT ?`)
    this.#totalBuckets = db.prepare(`SELECT start, ${NAMED} FROM usage_totals
      WHERE granularity = ? AND start >= ? AND start < ? ORDER BY start`)
    this.#lastUsed = db.prepare(
      'SELECT key_id AS keyId, minute_start AS minuteStart FROM key_last_used WHERE key_id IN (SELECT value FROM json_each(?))'
    )
    this.#pruneKeys = db.prepare(`DELETE FROM usage_by_key WHERE (granularity, key_id, start) IN
      (SELECT granularity, key_id, start FROM usage_by_key WHERE granularity = ? AND start < ? LIMIT ?)`)
    this.#pruneTotals = db.prepare(`DELETE FROM usage_totals WHERE (granularity, start) IN
      (SELECT granularity, start FROM usage_totals WHERE granularity = ? AND start < ? LIMIT ?)`)
  }

  async add(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return
    withoutFsync(this.#db, this.#synchronous, () => {
      for (const { keyId, minuteStart, allowed, rateLimited, banned, quotaExceeded } of deltas) {
        for (const granularity of GRANULARITIES) {
          const start = minuteStart - (minuteStart % GRANULARITY_MS[granularity])
          this.#addKey.run(granularity, keyId, start, allowed, rateLimited, banned, quotaExceeded)
        }
        this.#touch.run(keyId, minuteStart)
      }
      for (const t of totalsOf(deltas).values()) {
        this.#addTotal.run(t.granularity, t.start, t.allowed, t.rateLimited, t.banned, t.quotaExceeded)
      }
    })
  }

  async keyBuckets(keyId: string, span: UsageSpan): Promise<UsageRow[]> {
    const rows = this.#keyBuckets.all(span.granularity, keyId, span.from, span.to) as unknown as UsageRow[]
    return rows.map(toRow)
  }

  async totalBuckets(span: UsageSpan): Promise<UsageRow[]> {
    return (this.#totalBuckets.all(...spanArgs(span)) as unknown as UsageRow[]).map(toRow)
  }

  async customerBuckets(customerId: string, span: UsageSpan): Promise<UsageRow[]> {
    return (this.#customerBuckets.all(...spanArgs(span), customerId) as unknown as UsageRow[]).map(toRow)
  }

  async customerPeriods(span: UsageSpan, after: PeriodCursor | undefined, limit: number): Promise<CustomerPeriod[]> {
    const rows = this.#customerPeriods.all(
      ...spanArgs(span),
      after?.start ?? -1,
      after?.customerId ?? '',
      limit
    ) as unknown as CustomerPeriod[]
    return rows.map((row) => ({
      start: row.start,
      customerId: row.customerId,
      externalId: row.externalId,
      plan: row.plan,
      ...countsOf(row)
    }))
  }

  async topKeys(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<KeyUsageTotal[]> {
    const rows = this.#topRows('key', spans, order, limit)
    return rows.map((row) => ({ keyId: row.id, ...countsOf(row) }))
  }

  async topCustomers(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<CustomerUsageTotal[]> {
    const rows = this.#topRows('customer', spans, order, limit)
    return rows.map((row) => ({ customerId: row.id, ...countsOf(row) }))
  }

  #topRows(
    group: 'key' | 'customer',
    spans: readonly UsageSpan[],
    order: TopKeysOrder,
    limit: number
  ): Array<{ id: string } & UsageCounts> {
    if (spans.length === 0) return []
    const id = `${group} ${spans.length} ${order}`
    let statement = this.#top.get(id)
    if (statement === undefined) {
      const union = spans.map(() => SPAN_ROWS).join(' UNION ALL ')
      const [column, source] =
        group === 'key'
          ? ['key_id', `(${union})`]
          : ['k.customer_id', `(${union}) s JOIN api_keys k ON k.id = s.key_id AND k.customer_id IS NOT NULL`]
      statement = this.#db.prepare(`SELECT ${column} AS id, ${sums('')}
        FROM ${source} GROUP BY ${column} HAVING ${MEASURE[order]} > 0 ORDER BY ${MEASURE[order]} DESC, ${column} LIMIT ?`)
      this.#top.set(id, statement)
    }
    return statement.all(...spans.flatMap(spanArgs), limit) as unknown as Array<{ id: string } & UsageCounts>
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const rows = this.#lastUsed.all(JSON.stringify(keyIds)) as unknown as Array<{ keyId: string; minuteStart: number }>
    return new Map(rows.map((row) => [row.keyId, row.minuteStart]))
  }

  async prune(granularity: Granularity, before: number, limit: number): Promise<number> {
    let deleted = 0
    withoutFsync(this.#db, this.#synchronous, () => {
      deleted += Number(this.#pruneKeys.run(granularity, before, limit).changes)
      deleted += Number(this.#pruneTotals.run(granularity, before, limit).changes)
    })
    return deleted
  }
}
