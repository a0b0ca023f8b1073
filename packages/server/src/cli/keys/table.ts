import type { RateLimitStatus } from '@animal-store/contract'
import type { KeyView } from '../../domain/keys/views.ts'
import { alignedTable } from '../text-table.ts'

const monthly = (perMonth: number | null) => (perMonth === null ? '' : ` ${perMonth}/month`)

/** `keys list` for people: one aligned row per key. */
export function table(keys: KeyView[]): string {
  const rows = keys.map((k) => [
    k.id,
    k.name ?? '',
    k.plan,
    k.customerId,
    // The customer's monthly quota, when it has one (only then is the month counted).
    `${k.limits.perMinute}/min ${k.limits.perDay}/day${monthly(k.limits.perMonth)}`,
    k.scopes.length === 0 ? '-' : k.scopes.join(','),
    `${k.usage.minute}/min ${k.usage.day}/day${k.limits.perMonth === null ? '' : ` ${k.usage.month}/month`}`,
    k.createdAt,
    k.expiresAt ?? '-',
    k.revokedAt ?? '-',
    k.bannedUntil ?? '-'
  ])
  return alignedTable(['ID', 'NAME', 'PLAN', 'CUSTOMER', 'LIMITS', 'SCOPES', 'USED', 'CREATED', 'EXPIRES', 'REVOKED', 'BANNED UNTIL'], rows)
}

/** `keys usage` for people. */
export function usageText(usage: RateLimitStatus & { id: string }): string {
  const lines = usage.limits.map(
    (w) => `  ${w.window.padEnd(6)}  ${w.remaining} of ${w.limit} left, resets ${new Date(w.reset * 1000).toISOString()}`
  )
  const ban = usage.bannedUntil === null ? 'not banned' : `banned until ${new Date(usage.bannedUntil * 1000).toISOString()}`
  return `${usage.id} (${usage.plan}), ${ban}\n${lines.join('\n')}\n`
}
