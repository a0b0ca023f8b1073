import { GRANULARITIES, GRANULARITY_MS, type Granularity } from '@animal-store/contract'
import type {
  CustomerPeriod,
  CustomerUsageTotal,
  KeyUsageTotal,
  PeriodCursor,
  TopKeysOrder,
  UsageCounts,
  UsageDelta,
  UsageRow,
  UsageSpan,
  UsageStore
} from '../usage/types.ts'
import type { PostgresPool } from './pool.ts'

/** The four counts' columns, in the order of UsageCounts. */
const COLUMNS = 'allowed, rate_limited, banned, quota_exceeded'
/** The flush's deltas as a table: $1 key ids, $2 minute starts, $3..$6 the counts. */
const DELTAS = `unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
  AS d(key_id, minute, ${COLUMNS})`
const SIZES = `(VALUES ${GRANULARITIES.map((g) => `('${g}', ${GRANULARITY_MS[g]})`).join(', ')}) AS g(name, ms)`
/** The counts of the rows of `u` summed, each named as its column. */
const sums = (u: string) =>
  `sum(${u}allowed) AS allowed, sum(${u}rate_limited) AS rate_limited, sum(${u}banned) AS banned, sum(${u}quota_exceeded) AS quota_exceeded`
const addCounts = (t: string) =>
  COLUMNS.split(', ')
    .map((c) => `${c} = ${t}.${c} + excluded.${c}`)
    .join(', ')

// Rows are upserted in key order, so two instances flushing at once lock them in one order and never deadlock.
const ADD_KEYS = `INSERT INTO usage_by_key (granularity, key_id, start, ${COLUMNS})
  SELECT g.name, d.key_id, d.minute - d.minute % g.ms, ${sums('d.')} FROM ${DELTAS} CROSS JOIN ${SIZES}
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (granularity, key_id, start) DO UPDATE SET ${addCounts('usage_by_key')}`
const ADD_TOTALS = `INSERT INTO usage_totals (granularity, start, ${COLUMNS})
  SELECT g.name, d.minute - d.minute % g.ms, ${sums('d.')} FROM ${DELTAS} CROSS JOIN ${SIZES}
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (granularity, start) DO UPDATE SET ${addCounts('usage_totals')}`
const TOUCH = `INSERT INTO key_last_used (key_id, minute_start)
  SELECT d.key_id, max(d.minute) FROM ${DELTAS} GROUP BY 1 ORDER BY 1
  ON CONFLICT (key_id) DO UPDATE SET minute_start = GREATEST(key_last_used.minute_start, excluded.minute_start)`

const MEASURE: Record<TopKeysOrder, string> = { allowed: 'sum(allowed)', refused: 'sum(rate_limited) + sum(banned) + sum(quota_exceeded)' }
const spanRows = (n: number) =>
  `SELECT key_id, ${COLUMNS} FROM usage_by_key WHERE granularity = $${n} AND start >= $${n + 1} AND start < $${n + 2}`

const PRUNE = `WITH keys AS (
    DELETE FROM usage_by_key WHERE (granularity, key_id, start) IN
      (SELECT granularity, key_id, start FROM usage_by_key WHERE granularity = $1 AND start < $2 LIMIT $3)
    RETURNING 1
  ), totals AS (
    DELETE FROM usage_totals WHERE (granularity, start) IN
      (SELECT granularity, start FROM usage_totals WHERE granularity = $1 AND start < $2 LIMIT $3)
    RETURNING 1
  ) SELECT (SELECT count(*) FROM keys) + (SELECT count(*) FROM totals) AS n`

/** int8 and numeric arrive as text (pool.ts); counts stay far below 2^53. */
interface CountsText {
  allowed: string
  rate_limited: string
  banned: string
  quota_exceeded: string
}
const counts = (row: CountsText): UsageCounts => ({
  allowed: Number(row.allowed),
  rateLimited: Number(row.rate_limited),
  banned: Number(row.banned),
  quotaExceeded: Number(row.quota_exceeded)
})
const toRow = (row: CountsText & { start: string }): UsageRow => ({ start: Number(row.start), ...counts(row) })

/** Usage history shared by every instance: each flush adds its own deltas in one transaction. */
export class PostgresUsage implements UsageStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async add(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return
    const values = [
      deltas.map((d) => d.keyId),
      deltas.map((d) => d.minuteStart),
      deltas.map((d) => d.allowed),
      deltas.map((d) => d.rateLimited),
      deltas.map((d) => d.banned),
      deltas.map((d) => d.quotaExceeded)
    ]
    await this.#db.transaction(async (client) => {
      await client.query(ADD_KEYS, values)
      await client.query(ADD_TOTALS, values)
      await client.query(TOUCH, values)
    })
  }

  async keyBuckets(keyId: string, span: UsageSpan): Promise<UsageRow[]> {
    const rows = await this.#db.query<CountsText & { start: string }>(
      `SELECT start, ${COLUMNS} FROM usage_by_key
       WHERE granularity = $1 AND key_id = $2 AND start >= $3 AND start < $4 ORDER BY start`,
      [span.granularity, keyId, span.from, span.to]
    )
    return rows.map(toRow)
  }

  async totalBuckets(span: UsageSpan): Promise<UsageRow[]> {
    const rows = await this.#db.query<CountsText & { start: string }>(
      `SELECT start, ${COLUMNS} FROM usage_totals WHERE granularity = $1 AND start >= $2 AND start < $3 ORDER BY start`,
      [span.granularity, span.from, span.to]
    )
    return rows.map(toRow)
  }

  async customerBuckets(customerId: string, span: UsageSpan): Promise<UsageRow[]> {
    const rows = await this.#db.query<CountsText & { start: string }>(
      `SELECT u.start, ${sums('u.')}
       FROM api_keys k JOIN usage_by_key u ON u.granularity = $1 AND u.key_id = k.id AND u.start >= $2 AND u.start < $3
       WHERE k.customer_id = $4 GROUP BY u.start ORDER BY u.start`,
      [span.granularity, span.from, span.to, customerId]
    )
    return rows.map(toRow)
  }

  async customerPeriods(span: UsageSpan, after: PeriodCursor | undefined, limit: number): Promise<CustomerPeriod[]> {
    // COLLATE "C": customers in bytewise order, as on SQLite, whatever the database's locale.
    const rows = await this.#db.query<CountsText & { start: string; customer_id: string; external_id: string | null; plan: string }>(
      `SELECT u.start, k.customer_id, c.external_id, c.plan, ${sums('u.')}
       FROM usage_by_key u JOIN api_keys k ON k.id = u.key_id JOIN customers c ON c.id = k.customer_id
       WHERE u.granularity = $1 AND u.start >= $2 AND u.start < $3
         AND (u.start > $4 OR (u.start = $4 AND k.customer_id COLLATE "C" > $5))
       GROUP BY u.start, k.customer_id, c.external_id, c.plan
       HAVING sum(u.allowed) + sum(u.rate_limited) + sum(u.banned) + sum(u.quota_exceeded) > 0
       ORDER BY u.start, k.customer_id COLLATE "C" LIMIT $6`,
      [span.granularity, span.from, span.to, after?.start ?? -1, after?.customerId ?? '', limit]
    )
    return rows.map((row) => ({
      start: Number(row.start),
      customerId: row.customer_id,
      externalId: row.external_id,
      plan: row.plan,
      ...counts(row)
    }))
  }

  async topKeys(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<KeyUsageTotal[]> {
    return (await this.#topRows('key', spans, order, limit)).map((row) => ({ keyId: row.id, ...counts(row) }))
  }

  async topCustomers(spans: readonly UsageSpan[], order: TopKeysOrder, limit: number): Promise<CustomerUsageTotal[]> {
    return (await this.#topRows('customer', spans, order, limit)).map((row) => ({ customerId: row.id, ...counts(row) }))
  }

  async #topRows(
    group: 'key' | 'customer',
    spans: readonly UsageSpan[],
    order: TopKeysOrder,
    limit: number
  ): Promise<Array<CountsText & { id: string }>> {
    if (spans.length === 0) return []
    const union = spans.map((_, i) => spanRows(3 * i + 1)).join(' UNION ALL ')
    const [column, source] =
      group === 'key'
        ? ['key_id', `(${union}) AS spans`]
        : ['k.customer_id', `(${union}) AS s JOIN api_keys k ON k.id = s.key_id AND k.customer_id IS NOT NULL`]
    // COLLATE "C": ties go by id bytewise, as on SQLite, whatever the database's locale.
    return this.#db.query<CountsText & { id: string }>(
      `SELECT ${column} AS id, ${sums('')} FROM ${source}
       GROUP BY ${column} HAVING ${MEASURE[order]} > 0 ORDER BY ${MEASURE[order]} DESC, ${column} COLLATE "C" LIMIT $${3 * spans.length + 1}`,
      [...spans.flatMap((span) => [span.granularity, span.from, span.to]), limit]
    )
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.#db.query<{ key_id: string; minute_start: string }>(
      'SELECT key_id, minute_start FROM key_last_used WHERE key_id = ANY($1::text[])',
      [keyIds]
    )
    return new Map(rows.map((row) => [row.key_id, Number(row.minute_start)]))
  }

  async prune(granularity: Granularity, before: number, limit: number): Promise<number> {
    const [row] = await this.#db.query<{ n: string }>(PRUNE, [granularity, before, limit])
    return Number(row?.n ?? 0)
  }
}
