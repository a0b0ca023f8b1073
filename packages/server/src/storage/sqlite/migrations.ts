import type { Migration } from '../migrations.ts'

/** Numbered, append-only: never edit one that has shipped, add the next. */
export const SQLITE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'pets and api keys',
    sql: `
      CREATE TABLE pets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        category_id INTEGER NOT NULL CHECK (category_id >= 1),
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT;
      CREATE INDEX pets_status_id ON pets (status, id);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT,
        plan TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER CHECK (per_minute >= 1),
        per_day INTEGER CHECK (per_day >= 1),
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
    `
  },
  {
    version: 2,
    name: 'embedded rate-limit counters and bans',
    sql: `
      CREATE TABLE rate_limit_counters (
        subject TEXT PRIMARY KEY,
        minute_start INTEGER NOT NULL,
        minute_used INTEGER NOT NULL,
        refusals INTEGER NOT NULL,
        day_start INTEGER NOT NULL,
        day_used INTEGER NOT NULL,
        banned_until INTEGER
      ) STRICT;
      CREATE TABLE rate_limit_unbans (
        subject TEXT NOT NULL,
        requested_at INTEGER NOT NULL
      ) STRICT;
    `
  },
  {
    version: 3,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        api_key_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        status INTEGER,
        body TEXT,
        location TEXT,
        PRIMARY KEY (api_key_id, idempotency_key)
      ) STRICT;
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `
  },
  {
    version: 4,
    name: 'the previous secret of a rotated key',
    sql: `
      ALTER TABLE api_keys ADD COLUMN previous_secret_hash TEXT;
      ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at INTEGER;
      CREATE UNIQUE INDEX api_keys_previous_secret_hash ON api_keys (previous_secret_hash);
    `
  },
  {
    version: 5,
    name: 'usage history',
    // Starts are Unix milliseconds. Each flush adds to the minute, hour and day rows alike;
    // usage_totals holds every key's sum, so a chart of all keys reads one row per bucket.
    sql: `
      CREATE TABLE usage_by_key (
        granularity TEXT NOT NULL CHECK (granularity IN ('minute', 'hour', 'day')),
        key_id TEXT NOT NULL,
        start INTEGER NOT NULL,
        allowed INTEGER NOT NULL,
        rate_limited INTEGER NOT NULL,
        banned INTEGER NOT NULL,
        PRIMARY KEY (granularity, key_id, start)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX usage_by_key_start ON usage_by_key (granularity, start);
      CREATE TABLE usage_totals (
        granularity TEXT NOT NULL CHECK (granularity IN ('minute', 'hour', 'day')),
        start INTEGER NOT NULL,
        allowed INTEGER NOT NULL,
        rate_limited INTEGER NOT NULL,
        banned INTEGER NOT NULL,
        PRIMARY KEY (granularity, start)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE key_last_used (
        key_id TEXT PRIMARY KEY,
        minute_start INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `
  },
  {
    version: 6,
    name: 'operators and audit log',
    // Operators sign in with a token of which only the SHA-256 hash is kept. Every change to a key
    // or an operator leaves one audit_events row, written in the change's own transaction.
    sql: `
      CREATE TABLE operators (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('viewer', 'admin')),
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'cli')),
        actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('key.create', 'key.update', 'key.rotate', 'key.revoke', 'key.unban', 'operator.create', 'operator.revoke')),
        target_type TEXT NOT NULL CHECK (target_type IN ('key', 'operator')),
        target_id TEXT NOT NULL,
        target_name TEXT,
        changes TEXT NOT NULL,
        request_id TEXT,
        remote_address TEXT,
        user_agent TEXT
      ) STRICT;
      CREATE INDEX audit_events_target ON audit_events (target_id, id);
      CREATE INDEX audit_events_actor_id ON audit_events (actor_id, id);
      CREATE INDEX audit_events_actor_name ON audit_events (actor_name, id);
      CREATE INDEX api_keys_created ON api_keys (created_at, id);
    `
  },
  {
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
  },
  {
    version: 8,
    name: 'scopes of api keys',
    // Space-separated (an OAuth scope parameter); keys made before it, and by a release that
    // does not know it, get both scopes.
    sql: `ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'pets:read pets:write';`
  }
]
