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
  }
]
