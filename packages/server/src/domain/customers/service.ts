import type { Customer } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { AuditStore } from '../../storage/audit/types.ts'
import type { CustomerRecord, CustomerStore, CustomerWithKeys } from '../../storage/customers/types.ts'
import type { PlanStore } from '../../storage/plans/types.ts'
import { CLI_ORIGIN, type Actor, type RequestOrigin } from '../actor.ts'
import { auditEntry, type ChangeEvent } from '../audit/log.ts'
import { planChoice } from '../plans/changes.ts'
import { randomId } from '../secrets.ts'
import { customerChanges, looksLikeCustomerId, newCustomerFields, type CreateCustomerInput, type UpdateCustomerInput } from './changes.ts'
import { NO_USAGE, type CustomerCounters } from './counters.ts'
import { CustomerExistsError, CustomerNotFoundError } from './errors.ts'
import { customerEvent, customerFieldChanges } from './events.ts'
import { viewCustomer, type CustomerViews } from './views.ts'
import type { PlanBook } from '../plans/book.ts'

/** A change the service made: the customer after it, and the change as the audit log records it. */
export interface ChangedCustomer {
  customer: Customer
  event: ChangeEvent
}

export interface CustomerServiceParts {
  store: CustomerStore
  /** Where an unban (a change to the counters, not to the database) is audited. */
  audit: AuditStore
  clock: Clock
  counters: CustomerCounters
  views: CustomerViews
  plans: Pick<PlanStore, 'list'>
  planBook: PlanBook
  /** Called once a customer's plan or numbers changed, so this process's key cache reads its keys again at once. */
  customerChanged?: (() => void) | undefined
}

/** A new customer's id: `cus_` and 16 base62 characters. */
export const generateCustomerId = (): string => randomId('cus_')

/**
 * Customer administration for the CLI and the operator API alike; every change audited with its
 * actor and origin, in the change's own transaction. A change to the plan or numbers reaches all
 * the customer's keys on every instance within 5 s (their cached copies expire), counts kept.
 * Refusals: CustomerNotFoundError, CustomerInputError, CustomerExistsError; a refusal changes nothing.
 */
export class CustomerService {
  readonly #store: CustomerStore
  readonly #audit: AuditStore
  readonly #clock: Clock
  readonly #counters: CustomerCounters
  readonly #views: CustomerViews
  readonly #plans: Pick<PlanStore, 'list'>
  readonly #planBook: PlanBook
  readonly #customerChanged: () => void

  constructor(parts: CustomerServiceParts) {
    this.#store = parts.store
    this.#audit = parts.audit
    this.#clock = parts.clock
    this.#counters = parts.counters
    this.#views = parts.views
    this.#plans = parts.plans
    this.#planBook = parts.planBook
    this.#customerChanged = parts.customerChanged ?? (() => {})
  }

  async get(id: string): Promise<Customer> {
    return this.#views.one(await this.find(id), this.#clock.now())
  }

  async create(input: CreateCustomerInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedCustomer> {
    const now = this.#clock.now()
    const id = generateCustomerId()
    const record: CustomerRecord = { id, ...newCustomerFields(input, planChoice(await this.#plans.list())), counterId: id, createdAt: now }
    const event = customerEvent('customer.create', actor, record, now)
    if (!(await this.#store.create(record, auditEntry(event, origin)))) throw new CustomerExistsError(record.externalId!)
    // A new customer has no usage: its view asks no counters.
    return { customer: viewCustomer({ ...record, keys: 0 }, await this.#planBook.limitsOf(record), NO_USAGE), event }
  }

  /** Changes the customer in place; its keys, counts and any ban stay. */
  async update(id: string, input: UpdateCustomerInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedCustomer> {
    const now = this.#clock.now()
    const before = await this.find(id)
    const changes = customerChanges(before, input, planChoice(await this.#plans.list()))
    let event: ChangeEvent | undefined
    const result = await this.#store.update(id, changes, (from, to) => {
      event = customerEvent('customer.update', actor, to, now, customerFieldChanges(from, to))
      return auditEntry(event, origin)
    })
    if (result.outcome === 'missing') throw new CustomerNotFoundError(id)
    if (result.outcome === 'external_id_taken') throw new CustomerExistsError(changes.externalId!)
    this.#customerChanged()
    return { customer: await this.get(id), event: event! }
  }

  /**
   * Lifts the ban of all the customer's keys and clears its refusal count; unbanning a customer
   * not banned succeeds. The counters are not in the database: the audit entry is written right after.
   */
  async unban(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<ChangedCustomer> {
    const now = this.#clock.now()
    const customer = await this.find(id)
    await this.#counters.unban(customer.counterId, now)
    const event = customerEvent('customer.unban', actor, customer, now)
    await this.#audit.append(auditEntry(event, origin))
    return { customer: await this.#views.one(customer, now), event }
  }

  /** Gives a customer of its own to each key the previous release made during a rolling upgrade; returns how many. */
  adoptKeys(): Promise<number> {
    return this.#store.adoptKeys()
  }

  /** The customer with this id; an id not of our shape is not looked up. */
  async find(id: string): Promise<CustomerWithKeys> {
    const customer = looksLikeCustomerId(id) ? await this.#store.get(id) : undefined
    if (customer === undefined) throw new CustomerNotFoundError(id)
    return customer
  }
}
