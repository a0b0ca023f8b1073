import type { Migration } from '../../migrations.ts'
import { CUSTOMERS } from './customers.ts'
import { MONTHLY_QUOTAS } from './monthly-quotas.ts'
import { PLANS_AS_DATA } from './plans-as-data.ts'

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
  PLANS_AS_DATA,
  {
    version: 8,
    name: 'scopes of api keys',
    // Space-separated (an OAuth scope parameter); keys made before it, and by a release that
    // does not know it, get both scopes.
    sql: `ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'pets:read pets:write';`
  },
  CUSTOMERS,
  MONTHLY_QUOTAS
]
