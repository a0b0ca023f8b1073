import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { randomUUID } from 'node:crypto'
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore } from '../pets/idempotency.ts'

interface Row {
  fingerprint: string
  token: string
  created_at: number
  status: number | null
  body: string | null
  location: string | null
}

export class SqliteIdempotency implements IdempotencyStore {
  readonly #db: DatabaseSync
  readonly #select: StatementSync
  readonly #upsert: StatementSync

  constructor(db: DatabaseSync) {
    this.#db = db
    this.#select = db.prepare(
      'SELECT fingerprint, token, created_at, status, body, location FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?'
    )
    this.#upsert =
      db.prepare(`INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, token, created_at, status, body, location)
      VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL)
      ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, token = excluded.token,
        created_at = excluded.created_at, status = NULL, body = NULL, location = NULL`)
  }

  async claim(
    scope: IdempotencyScope,
    fingerprint: string,
    now: number,
    { expiredBefore, staleBefore }: { expiredBefore: number; staleBefore: number }
  ): Promise<IdempotencyClaim> {
    // IMMEDIATE takes the write lock before reading, so the read and the claim are one step.
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      const row = this.#select.get(scope.apiKeyId, scope.key) as unknown as Row | undefined
      let claim: IdempotencyClaim | undefined
      if (row !== undefined && row.status !== null && row.created_at >= expiredBefore) {
        claim = {
          state: 'completed',
          fingerprint: row.fingerprint,
          response: { status: row.status, body: row.body!, location: row.location }
        }
      } else if (row !== undefined && row.status === null && row.created_at >= staleBefore) {
        claim = { state: 'in_flight', fingerprint: row.fingerprint }
      } else {
        const token = randomUUID()
        this.#upsert.run(scope.apiKeyId, scope.key, fingerprint, token, now)
        claim = { state: 'claimed', token }
      }
      this.#db.exec('COMMIT')
      return claim
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    }
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    this.#db
      .prepare('DELETE FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND token = ? AND status IS NULL')
      .run(scope.apiKeyId, scope.key, token)
  }

  async purge(before: number): Promise<number> {
    return Number(this.#db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(before).changes)
  }
}
