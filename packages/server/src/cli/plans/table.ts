import type { Plan } from '@animal-store/contract'
import { alignedTable } from '../text-table.ts'

const monthText = (perMonth: number | null) => (perMonth === null ? 'no monthly quota' : `${perMonth}/month`)

/** A plan's limits in one phrase, for the lines `plans create` and `update` print. */
export const limitsText = (plan: Plan) =>
  plan.limits === null
    ? 'custom: each customer on it carries its own limits'
    : `${plan.limits.perMinute}/min, ${plan.limits.perDay}/day, ${monthText(plan.limits.perMonth)}`

/** `plans list` for people: one aligned row per plan. */
export function table(plans: readonly Plan[]): string {
  const rows = plans.map((p) => [
    p.id,
    p.name,
    p.limits === null ? 'custom' : String(p.limits.perMinute),
    p.limits === null ? 'custom' : String(p.limits.perDay),
    p.limits === null ? 'custom' : p.limits.perMonth === null ? '-' : String(p.limits.perMonth),
    String(p.customers)
  ])
  return alignedTable(['ID', 'NAME', 'PER MINUTE', 'PER DAY', 'PER MONTH', 'CUSTOMERS'], rows)
}
