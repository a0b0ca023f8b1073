import type { Migration } from '../../migrations.ts'

/** Migration 7: the plans table, seeded, and the checks that named four plans widened. */
export const PLANS_AS_DATA: Migration = {
  version: 7,
  name: 'plans as data',
  // Plans become rows, seeded with SPEC.md's four (limits both null: a custom plan, each key on
  // it carries its own numbers; per_month stays null until the monthly quota). This only adds:
  // during a rolling upgrade the previous release keeps serving from this database, and it
  // writes only those four plans and only key.* and operator.* audit actions, which all still
  // pass. api_keys.plan now names a row of plans instead of one of four words; the audit log
  // also accepts plans, and customers (next release), as targets. The constraints dropped are
  // the names PostgreSQL gave migrations 1 and 6's column CHECKs; the wider ones keep those names.
  sql: `
      CREATE TABLE plans (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        per_minute BIGINT CHECK (per_minute >= 1),
        per_day BIGINT CHECK (per_day >= 1),
        per_month BIGINT CHECK (per_month >= 1),
        created_at TIMESTAMPTZ NOT NULL,
        -- Both numbers or neither (a CHECK passes on NULL, so ">= 1" alone would let one be missing).
        CONSTRAINT plans_limits_check CHECK ((per_minute IS NULL) = (per_day IS NULL))
      );
      INSERT INTO plans (id, name, per_minute, per_day, created_at)
        SELECT id, name, per_minute, per_day, date_trunc('milliseconds', now())
        FROM (VALUES ('free', 'Free', 60, 1000), ('pro', 'Pro', 300, 10000), ('business', 'Business', 1000, 100000),
          ('enterprise', 'Enterprise', NULL, NULL)) AS seed (id, name, per_minute, per_day);

      ALTER TABLE api_keys DROP CONSTRAINT api_keys_plan_check,
        ADD CONSTRAINT api_keys_plan_fkey FOREIGN KEY (plan) REFERENCES plans (id);
      -- Counting a plan's keys, and the foreign key's check when a plan is deleted.
      CREATE INDEX api_keys_plan ON api_keys (plan);

      ALTER TABLE audit_events DROP CONSTRAINT audit_events_action_check,
        ADD CONSTRAINT audit_events_action_check CHECK (action IN ('key.create', 'key.update', 'key.rotate', 'key.revoke', 'key.unban',
          'operator.create', 'operator.revoke', 'plan.create', 'plan.update', 'plan.delete', 'customer.create', 'customer.update',
          'customer.unban')),
        DROP CONSTRAINT audit_events_target_type_check,
        ADD CONSTRAINT audit_events_target_type_check CHECK (target_type IN ('key', 'operator', 'plan', 'customer'));
    `
}
