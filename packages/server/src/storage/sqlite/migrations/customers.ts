import type { Migration } from '../../migrations.ts'
import { ADOPT_KEYS } from '../../customers/row.ts'

/** Migration 9: customers, and every existing key made the only key of a customer of its own. */
export const CUSTOMERS: Migration = {
  version: 9,
  name: 'customers',
  // A customer's limits, windows and ban are shared by its keys (counter subject `key:<counter_id>`).
  // Each existing key gets a customer with its name, plan, numbers and counters (ADOPT_KEYS), so it
  // answers exactly as before. per_month waits for the monthly quota (null: none). api_keys keeps
  // its plan and numbers, written alongside the customer's, for a release that does not know customers.
  sql: `
      CREATE TABLE customers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        external_id TEXT UNIQUE,
        plan TEXT NOT NULL REFERENCES plans (id),
        per_minute INTEGER CHECK (per_minute >= 1),
        per_day INTEGER CHECK (per_day >= 1),
        per_month INTEGER CHECK (per_month >= 1),
        counter_id TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX customers_created ON customers (created_at, id);
      CREATE INDEX customers_plan ON customers (plan);
      ALTER TABLE api_keys ADD COLUMN customer_id TEXT REFERENCES customers (id);
      CREATE INDEX api_keys_customer ON api_keys (customer_id);
      ${ADOPT_KEYS.join(';\n')};
    `
}
