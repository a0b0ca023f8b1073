import type { Migration } from '../../migrations.ts'

/** Migration 10: refusals of the monthly quota in the usage history (the month's counters live in Redis). */
export const MONTHLY_QUOTAS: Migration = {
  version: 10,
  name: 'monthly quotas',
  // Only adds, with a default: the previous release's usage inserts name the columns they know and
  // keep working during a rolling upgrade. plans.per_month and customers.per_month exist since 7 and 9.
  sql: `
    ALTER TABLE usage_by_key ADD COLUMN quota_exceeded BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE usage_totals ADD COLUMN quota_exceeded BIGINT NOT NULL DEFAULT 0;
  `
}
