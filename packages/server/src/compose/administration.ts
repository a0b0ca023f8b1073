import type { Clock } from '../base/clock.ts'
import { AuditLog } from '../domain/audit/log.ts'
import { CustomerDirectory } from '../domain/customers/directory.ts'
import { CustomerService } from '../domain/customers/service.ts'
import { CustomerViews } from '../domain/customers/views.ts'
import { KeyDirectory } from '../domain/keys/directory.ts'
import { KeyService } from '../domain/keys/service.ts'
import { KeyViews, type LastUseLookup } from '../domain/keys/views.ts'
import { OperatorService } from '../domain/operators/service.ts'
import { PlanBook } from '../domain/plans/book.ts'
import { PlanService } from '../domain/plans/service.ts'
import type { UsageService } from '../domain/usage/service.ts'
import { customerCounters } from '../limits/rate-limiter.ts'
import type { CounterReader } from '../limits/types.ts'
import type { KeyStore } from '../storage/keys/types.ts'
import type { Storage } from '../storage/types.ts'

/** Last use as the CLI reads it: what the serving processes had stored at their latest flush. */
export function storedLastUse(storage: Storage): LastUseLookup {
  // The store is opened on first use: a CLI that opens an unmigrated database must not prepare its statements.
  return async (keyIds) => {
    if (keyIds.length === 0) return new Map()
    const minutes = await storage.usage.lastUsed(keyIds)
    return new Map([...minutes].map(([keyId, start]) => [keyId, new Date(start).toISOString()]))
  }
}

/** What `administration` makes: the services that change things, and the views the operator API's reads share. */
export interface Administration {
  keys: KeyService
  customers: CustomerService
  plans: PlanService
  operators: OperatorService
  views: KeyViews
  customerViews: CustomerViews
}

/** Key, customer, plan and operator administration over the storage and counters: the same for the CLI and a serving process. */
export function administration(
  storage: Storage,
  clock: Clock,
  counters: CounterReader,
  options: {
    keys?: KeyStore
    lastUsed: LastUseLookup
    keyChanged?: (keyId: string) => void
    customerChanged?: () => void
    planBook?: PlanBook
  }
): Administration {
  const limits = customerCounters(counters)
  const keyStore = options.keys ?? storage.keys
  // The CLI reads the plans when it first needs them; a serving process hands in the book it keeps fresh.
  const planBook = options.planBook ?? new PlanBook(storage.plans)
  const views = new KeyViews(limits, options.lastUsed, planBook, {
    adoptKeys: () => storage.customers.adoptKeys(),
    get: (id) => keyStore.get(id)
  })
  const customerViews = new CustomerViews(limits, planBook)
  const common = { audit: storage.audit, clock, plans: storage.plans, planBook, customerChanged: options.customerChanged }
  const customers = new CustomerService({ ...common, store: storage.customers, counters: limits, views: customerViews })
  const keys = new KeyService({ ...common, store: keyStore, limits, views, customers, keyChanged: options.keyChanged })
  const plans = new PlanService(storage.plans, clock, () => void planBook.refresh().catch(() => {}))
  return { keys, customers, plans, operators: new OperatorService(storage.operators, clock), views, customerViews }
}

/** What only the operator API reads: keys and customers listed, banned and ranked, and the audit log. */
export function operatorReads(
  keys: KeyStore,
  storage: Storage,
  clock: Clock,
  parts: { counters: CounterReader; administration: Administration; usage: UsageService }
): { directory: KeyDirectory; customerDirectory: CustomerDirectory; audit: AuditLog } {
  const { views, customerViews, customers } = parts.administration
  const directory = new KeyDirectory(keys, clock, { limits: customerCounters(parts.counters), views, usage: parts.usage })
  const customerDirectory = new CustomerDirectory(storage.customers, clock, { views: customerViews, customers, usage: parts.usage })
  return { directory, customerDirectory, audit: new AuditLog(storage.audit) }
}
