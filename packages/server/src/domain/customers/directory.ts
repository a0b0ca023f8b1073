import {
  ADMIN_PAGE_LIMIT_DEFAULT,
  type Customer,
  type ListCustomersQuery,
  type TopCustomer,
  type UsageBucket
} from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { CustomerStore, CustomerWithKeys } from '../../storage/customers/types.ts'
import { decodeCustomerCursor, encodeCustomerCursor } from '../admin-cursors.ts'
import type { UsageRangeInput } from '../usage/range.ts'
import type { TopKeysInput, UsageService } from '../usage/service.ts'
import type { CustomerService } from './service.ts'
import type { CustomerViews } from './views.ts'
import { countsOf } from '../../storage/usage/counts.ts'

/** The customers as the operator API lists them: filtered and paged newest first, their usage, the most used. */
export class CustomerDirectory {
  readonly #store: CustomerStore
  readonly #clock: Clock
  readonly #views: CustomerViews
  readonly #customers: Pick<CustomerService, 'find'>
  readonly #usage: Pick<UsageService, 'customerUsage' | 'topCustomers'>

  constructor(
    store: CustomerStore,
    clock: Clock,
    parts: { views: CustomerViews; customers: Pick<CustomerService, 'find'>; usage: Pick<UsageService, 'customerUsage' | 'topCustomers'> }
  ) {
    this.#store = store
    this.#clock = clock
    this.#views = parts.views
    this.#customers = parts.customers
    this.#usage = parts.usage
  }

  /** A page of the customers that match, newest first, and the cursor of the next page while more follow. */
  async page(query: ListCustomersQuery): Promise<{ customers: Customer[]; next: string | undefined }> {
    const { search, plan, cursor } = query
    const limit = query.limit ?? ADMIN_PAGE_LIMIT_DEFAULT
    const filters = { search, plan }
    const before = cursor === undefined ? undefined : decodeCustomerCursor(cursor, filters)
    // One more than asked for tells whether a next page exists: the last page links to none.
    const found = await this.#store.page({ search: search?.toLowerCase(), plan, before, limit: limit + 1 })
    const page = found.slice(0, limit)
    const last = page.at(-1)
    return {
      customers: await this.#views.of(page, this.#clock.now()),
      next: found.length > limit && last !== undefined ? encodeCustomerCursor(filters, last) : undefined
    }
  }

  /** The requests of all the customer's keys by outcome in every bucket of the range; CustomerNotFoundError for an unknown id. */
  async usage(id: string, range: UsageRangeInput): Promise<UsageBucket[]> {
    const customer = await this.#customers.find(id)
    return this.#usage.customerUsage(customer.id, range)
  }

  /** The customers with the most requests by `by` over the range (their keys summed), most first, each with its view. */
  async top(input: TopKeysInput): Promise<TopCustomer[]> {
    const totals = await this.#usage.topCustomers(input)
    const customers = await Promise.all(totals.map((total) => this.#store.get(total.customerId)))
    const found = totals.flatMap((total, i) => (customers[i] === undefined ? [] : [{ total, customer: customers[i] }]))
    const views = await this.#views.of(
      found.map(({ customer }): CustomerWithKeys => customer),
      this.#clock.now()
    )
    return found.map(({ total }, i) => ({ customer: views[i]!, ...countsOf(total) }))
  }
}
