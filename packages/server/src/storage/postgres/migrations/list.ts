import type { Migration } from '../../migrations.ts'
import { CUSTOMERS } from './customers.ts'
import { MONTHLY_QUOTAS } from './monthly-quotas.ts'
import { PLANS_AS_DATA } from './plans-as-data.ts'

/**
 * Numbered, append-only: never edit one that has shipped, add the next. Each runs in its own
 * transaction (PostgreSQL DDL is transactional), under the migration advisory lock.
 */
export const POSTGRES_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'pets and api keys',
    sql: `
      CREATE TABLE pets (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        -- UTF-8 bytes rather than TEXT: a name may hold U+0000, which TEXT cannot store.
        name BYTEA NOT NULL,
        category_id BIGINT NOT NULL CHECK (category_id >= 1),
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      );
      CREATE INDEX pets_status_id ON pets (status, id);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT,
        plan TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute BIGINT CHECK (per_minute >= 1),
        per_day BIGINT CHECK (per_day >= 1),
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ,
        revoked_at TIMESTAMPTZ
      );
    `
  },
  {
    version: 2,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        api_key_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        token TEXT NOT NULL,
        -- Unix milliseconds of the service's clock, like every window and deadline.
        created_at BIGINT NOT NULL,
        status INTEGER,
        body TEXT,
        location TEXT,
        PRIMARY KEY (api_key_id, idempotency_key)
      );
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `
  },
  {
    version: 3,
    name: 'insert_pets: a batch of pets in one statement',
    // Keyset paging reads "ids after the last one I saw". An identity sequence hands out ids
    // before commit, so two concurrent inserts could become visible out of order (11 before
    // 10): a reader would then page past 10 and never see it. Holding this lock (namespace
    // "anpi", the table's oid) from nextval to commit makes ids become visible in ascending
    // order, on every instance. As one function, a batch without Idempotency-Keys is one
    // statement: one round trip, its own transaction, rather than five.
    sql: `
      CREATE FUNCTION insert_pets(names BYTEA[], category_ids BIGINT[], statuses TEXT[]) RETURNS BIGINT[]
      LANGUAGE plpgsql AS $fn$
      DECLARE
        seq REGCLASS := pg_get_serial_sequence('pets', 'id')::regclass;
        ids BIGINT[] := '{}';
      BEGIN
        PERFORM pg_advisory_xact_lock(${0x616e7069}, 'pets'::regclass::oid::int4);
        FOR i IN 1 .. coalesce(cardinality(names), 0) LOOP
          ids := ids || nextval(seq);
        END LOOP;
        INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
          SELECT * FROM unnest(ids, names, category_ids, statuses);
        RETURN ids;
      END
      $fn$;
    `
  },
  {
    version: 4,
    name: 'the previous secret of a rotated key',
    sql: `
      ALTER TABLE api_keys ADD COLUMN previous_secret_hash TEXT UNIQUE;
      ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at TIMESTAMPTZ;
    `
  },
  {
    version: 5,
    name: 'usage history',
    // Starts are Unix milliseconds. Each flush of each instance adds to the minute, hour and day
    // rows alike; usage_totals holds every key's sum, so a chart of all keys reads one row per bucket.
    sql: `
      CREATE TABLE usage_by_key (
        granularity TEXT NOT NULL CHECK (granularity IN ('minute', 'hour', 'day')),
        key_id TEXT NOT NULL,
        start BIGINT NOT NULL,
        allowed BIGINT NOT NULL,
        rate_limited BIGINT NOT NULL,
        banned BIGINT NOT NULL,
        PRIMARY KEY (granularity, key_id, start)
      );
      CREATE INDEX usage_by_key_start ON usage_by_key (granularity, start);
      CREATE TABLE usage_totals (
        granularity TEXT NOT NULL CHECK (granularity IN ('minute', 'hour', 'day')),
        start BIGINT NOT NULL,
        allowed BIGINT NOT NULL,
        rate_limited BIGINT NOT NULL,
        banned BIGINT NOT NULL,
        PRIMARY KEY (granularity, start)
      );
      CREATE TABLE key_last_used (
        key_id TEXT PRIMARY KEY,
        minute_start BIGINT NOT NULL
      );
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
        created_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ
      );
      CREATE TABLE audit_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at TIMESTAMPTZ NOT NULL,
        actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'cli')),
        actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('key.create', 'key.update', 'key.rotate', 'key.revoke', 'key.unban', 'operator.create', 'operator.revoke')),
        target_type TEXT NOT NULL CHECK (target_type IN ('key', 'operator')),
        target_id TEXT NOT NULL,
        target_name TEXT,
        changes JSONB NOT NULL,
        request_id TEXT,
        remote_address TEXT,
        user_agent TEXT
      );
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
    // Only adds: a key the previous release creates during a rolling upgrade gets both scopes,
    // as every key before it. Space-separated, as an OAuth scope parameter.
    sql: `ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'pets:read pets:write';`
  },
  CUSTOMERS,
  MONTHLY_QUOTAS
]
