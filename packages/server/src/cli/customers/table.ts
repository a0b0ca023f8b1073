import type { Customer } from '@animal-store/contract'
import type { CliServices } from '../../services.ts'
import { alignedTable } from '../text-table.ts'

/** How many customers one read of the store brings: the operator API's largest page. */
const PAGE_SIZE = 100

/**
 * Every customer, newest first, each as the operator API shows it. The CLI has no customer
 * directory (that needs the serving app's usage history), so it pages the store and asks the
 * service for each customer's view: one counters read per customer, fine for a command.
 */
export async function allCustomers(services: Pick<CliServices, 'storage' | 'customers'>): Promise<Customer[]> {
  const all: Customer[] = []
  let before: { createdAt: number; id: string } | undefined
  for (;;) {
    const page = await services.storage.customers.page({ limit: PAGE_SIZE, before })
    all.push(...(await Promise.all(page.map((customer) => services.customers.get(customer.id)))))
    const last = page.at(-1)
    if (page.length < PAGE_SIZE || last === undefined) return all
    before = { createdAt: last.createdAt, id: last.id }
  }
}

/** A customer in one phrase, for the lines `customers create` and `update` print. */
export const customerText = (c: Customer) =>
  `${c.name}; plan ${c.plan}, ${c.ownLimits ? 'own limits ' : ''}${c.limits.perMinute}/min, ${c.limits.perDay}/day` +
  (c.limits.perMonth === null ? '' : `, ${c.limits.perMonth}/month`) +
  (c.externalId === null ? '' : `; external id ${c.externalId}`)

/** `customers list` for people: one aligned row per customer. */
export function table(customers: readonly Customer[]): string {
  const rows = customers.map((c) => [
    c.id,
    c.name,
    c.externalId ?? '-',
    c.plan,
    `${c.limits.perMinute}/min ${c.limits.perDay}/day${c.ownLimits ? ' (own)' : ''}`,
    c.limits.perMonth === null ? '-' : String(c.limits.perMonth),
    // The month is counted only under a monthly quota.
    `${c.usage.minute}/min ${c.usage.day}/day${c.limits.perMonth === null ? '' : ` ${c.usage.month}/month`}`,
    String(c.keys),
    c.bannedUntil === null ? 'active' : `banned until ${c.bannedUntil}`
  ])
  return alignedTable(['ID', 'NAME', 'EXTERNAL ID', 'PLAN', 'LIMITS', 'PER MONTH', 'USED', 'KEYS', 'STATE'], rows)
}
