import { randomUUID } from 'node:crypto'
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore } from '../pets/idempotency.ts'
import type { PostgresPool } from './pool.ts'

interface Row {
  fingerprint: string
  token: string
  created_at: string
  status: number | null
  body: string | null
  location: string | null
}

export class PostgresIdempotency implements IdempotencyStore {
  readonly #db: PostgresPool

  constructor(db: PostgresPool) {
    this.#db = db
  }

  async claim(
    scope: IdempotencyScope,
    fingerprint: string,
    now: number,
    { expiredBefore, staleBefore }: { expiredBefore: number; staleBefore: number }
  ): Promise<IdempotencyClaim> {
    const token = randomUUID()
    // One statement decides, under the primary key's lock: insert, or take over an expired
    // record or a stale claim. Two instances racing on one key: exactly one gets its token back.
    const [claimed] = await this.#db.query<{ token: string }>(
      `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, token, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token,
         created_at = EXCLUDED.created_at, status = NULL, body = NULL, location = NULL
       WHERE (idempotency_keys.status IS NOT NULL AND idempotency_keys.created_at < $6)
          OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $7)
       RETURNING token`,
      [scope.apiKeyId, scope.key, fingerprint, token, String(now), String(expiredBefore), String(staleBefore)]
    )
    if (claimed?.token === token) return { state: 'claimed', token }
    const [row] = await this.#db.query<Row>(
      'SELECT fingerprint, token, created_at, status, body, location FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2',
      [scope.apiKeyId, scope.key]
    )
    // Released between the two statements: the key is free again; claim it afresh.
    if (row === undefined) return this.claim(scope, fingerprint, now, { expiredBefore, staleBefore })
    if (row.status === null) return { state: 'in_flight', fingerprint: row.fingerprint }
    return { state: 'completed', fingerprint: row.fingerprint, response: { status: row.status, body: row.body!, location: row.location } }
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    await this.#db.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND token = $3 AND status IS NULL', [
      scope.apiKeyId,
      scope.key,
      token
    ])
  }

  async purge(before: number): Promise<number> {
    const rows = await this.#db.query<{ n: string }>(
      'WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone',
      [String(before)]
    )
    return Number(rows[0]?.n ?? 0)
  }
}
