import type { Migration } from '../../migrations.ts'
import { ADOPT_KEYS } from '../../customers/row.ts'

/** Migration 9: customers, and every existing key made the only key of a customer of its own. */
export const CUSTOMERS: Migration = {
  version: 9,
  name: 'customers',
  // Only adds: a new table and a nullable column. The previous release, still serving during a
  // rolling upgrade, reads and writes api_keys as before: it counts an adopted key under the same
  // counters (the customer's are the key's), and a key it creates gets a customer of its own when
  // an instance of this release next starts (ADOPT_KEYS); until then it is served as one. api_keys
  // keeps its plan and numbers, written alongside the customer's, for that release.
  sql: `
      CREATE TABLE customers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        external_id TEXT UNIQUE,
        plan TEXT NOT NULL REFERENCES plans (id),
        per_minute BIGINT CHECK (per_minute >= 1),
        per_day BIGINT CHECK (per_day >= 1),
        per_month BIGINT CHECK (per_month >= 1),
        counter_id TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX customers_created ON customers (created_at, id);
      CREATE INDEX customers_plan ON customers (plan);
      ALTER TABLE api_keys ADD COLUMN customer_id TEXT REFERENCES customers (id);
      CREATE INDEX api_keys_customer ON api_keys (customer_id);
      ${ADOPT_KEYS.join(';\n')};
    `
}
