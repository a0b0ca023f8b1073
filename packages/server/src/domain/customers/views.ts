import type { Customer, Limits } from '@animal-store/contract'
import type { CustomerWithKeys } from '../../storage/customers/types.ts'
import type { PlanBook } from '../plans/book.ts'
import type { CustomerCounters, WindowUsage } from './counters.ts'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The view of `customer` with the limits in force, the use of its windows and its ban. */
export function viewCustomer(customer: CustomerWithKeys, limits: Limits, usage: WindowUsage): Customer {
  return {
    id: customer.id,
    name: customer.name,
    externalId: customer.externalId,
    plan: customer.plan,
    limits: { perMinute: limits.perMinute, perDay: limits.perDay, perMonth: limits.perMonth },
    ownLimits: customer.perMinute !== null || customer.perDay !== null,
    keys: customer.keys,
    createdAt: iso(customer.createdAt)!,
    bannedUntil: iso(usage.bannedUntil),
    usage: { minute: usage.minuteUsed, day: usage.dayUsed, month: usage.monthUsed }
  }
}

/** Customers as operators see them: each with its limits in force, and its counters' use and ban. */
export class CustomerViews {
  readonly #counters: CustomerCounters
  readonly #plans: PlanBook

  constructor(counters: CustomerCounters, plans: PlanBook) {
    this.#counters = counters
    this.#plans = plans
  }

  /** The views of `customers` at `now`, in their order: one counters read per customer. */
  async of(customers: readonly CustomerWithKeys[], now: number): Promise<Customer[]> {
    const [usages, limits] = await Promise.all([
      Promise.all(customers.map((customer) => this.#counters.usage(customer.counterId, now))),
      Promise.all(customers.map(async (customer) => this.#plans.limitsOf(customer)))
    ])
    return customers.map((customer, i) => viewCustomer(customer, limits[i]!, usages[i]!))
  }

  async one(customer: CustomerWithKeys, now: number): Promise<Customer> {
    return (await this.of([customer], now))[0]!
  }
}
