import type { Migration } from '../../migrations.ts'

/** Migration 7: the plans table, and the two tables SQLite must rebuild to relax their checks. */
export const PLANS_AS_DATA: Migration = {
  version: 7,
  name: 'plans as data',
  // Plans become rows, seeded with SPEC.md's four (limits both null: a custom plan, each key on
  // it carries its own numbers; per_month stays null until the monthly quota). SQLite cannot
  // drop a CHECK, so api_keys (whose plan now names a row of plans) and audit_events (which now
  // records plans, and customers next) are rebuilt: same columns, rows and indexes. The writing
  // connection enforces foreign keys; no table references either, so dropping them deletes
  // nothing else. audit_events keeps its AUTOINCREMENT high-water mark: its sqlite_sequence row
  // moves to the new table before the old one is dropped, so no id is ever handed out twice.
  sql: `
      CREATE TABLE plans (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        per_minute INTEGER CHECK (per_minute >= 1),
        per_day INTEGER CHECK (per_day >= 1),
        per_month INTEGER CHECK (per_month >= 1),
        created_at INTEGER NOT NULL,
        -- Both numbers or neither (a CHECK passes on NULL, so ">= 1" alone would let one be missing).
        CONSTRAINT plans_limits_check CHECK ((per_minute IS NULL) = (per_day IS NULL))
      ) STRICT;
      INSERT INTO plans (id, name, per_minute, per_day, created_at)
        SELECT column1, column2, column3, column4, CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM (VALUES ('free', 'Free', 60, 1000), ('pro', 'Pro', 300, 10000), ('business', 'Business', 1000, 100000),
          ('enterprise', 'Enterprise', NULL, NULL));

      CREATE TABLE api_keys_new (
        id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT,
        plan TEXT NOT NULL REFERENCES plans (id),
        per_minute INTEGER CHECK (per_minute >= 1),
        per_day INTEGER CHECK (per_day >= 1),
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        previous_secret_hash TEXT,
        previous_secret_expires_at INTEGER
      ) STRICT;
      INSERT INTO api_keys_new (id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at,
          previous_secret_hash, previous_secret_expires_at)
        SELECT id, secret_hash, prefix, name, plan, per_minute, per_day, created_at, expires_at, revoked_at,
          previous_secret_hash, previous_secret_expires_at
        FROM api_keys;
      DROP TABLE api_keys;
      ALTER TABLE api_keys_new RENAME TO api_keys;
      CREATE UNIQUE INDEX api_keys_previous_secret_hash ON api_keys (previous_secret_hash);
      CREATE INDEX api_keys_created ON api_keys (created_at, id);
      -- Counting a plan's keys, and the foreign key's check when a plan is deleted.
      CREATE INDEX api_keys_plan ON api_keys (plan);

      CREATE TABLE audit_events_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'cli')),
        actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('key.create', 'key.update', 'key.rotate', 'key.revoke', 'key.unban', 'operator.create',
          'operator.revoke', 'plan.create', 'plan.update', 'plan.delete', 'customer.create', 'customer.update', 'customer.unban')),
        target_type TEXT NOT NULL CHECK (target_type IN ('key', 'operator', 'plan', 'customer')),
        target_id TEXT NOT NULL,
        target_name TEXT,
        changes TEXT NOT NULL,
        request_id TEXT,
        remote_address TEXT,
        user_agent TEXT
      ) STRICT;
      INSERT INTO audit_events_new (id, at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes,
          request_id, remote_address, user_agent)
        SELECT id, at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes,
          request_id, remote_address, user_agent
        FROM audit_events;
      DELETE FROM sqlite_sequence WHERE name = 'audit_events_new';
      UPDATE sqlite_sequence SET name = 'audit_events_new' WHERE name = 'audit_events';
      DROP TABLE audit_events;
      ALTER TABLE audit_events_new RENAME TO audit_events;
      CREATE INDEX audit_events_target ON audit_events (target_id, id);
      CREATE INDEX audit_events_actor_id ON audit_events (actor_id, id);
      CREATE INDEX audit_events_actor_name ON audit_events (actor_name, id);
    `
}
