import type { Migration } from '../../migrations.ts'

/** Migration 10: the calendar month as a third rate-limit window, and its refusals in the usage history. */
export const MONTHLY_QUOTAS: Migration = {
  version: 10,
  name: 'monthly quotas',
  // Only adds, with defaults: a row written by a release that knows no month has used none of it.
  // month_start 0 is "no month counted yet"; plans.per_month and customers.per_month exist since 7 and 9.
  sql: `
    ALTER TABLE rate_limit_counters ADD COLUMN month_start INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rate_limit_counters ADD COLUMN month_used INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE usage_by_key ADD COLUMN quota_exceeded INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE usage_totals ADD COLUMN quota_exceeded INTEGER NOT NULL DEFAULT 0;
  `
}
