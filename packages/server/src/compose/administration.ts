import type { Clock } from '../base/clock.ts'
import { AuditLog } from '../domain/audit/log.ts'
import { KeyDirectory } from '../domain/keys/directory.ts'
import { KeyService } from '../domain/keys/service.ts'
import { KeyViews, type LastUseLookup } from '../domain/keys/views.ts'
import { OperatorService } from '../domain/operators/service.ts'
import { PlanBook } from '../domain/plans/book.ts'
import { PlanService } from '../domain/plans/service.ts'
import type { UsageService } from '../domain/usage/service.ts'
import { keyLimitState } from '../limits/rate-limiter.ts'
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

/** Key, plan and operator administration over the storage and counters: the same for the CLI and a serving process. */
export function administration(
  storage: Storage,
  clock: Clock,
  counters: CounterReader,
  options: { keys?: KeyStore; lastUsed: LastUseLookup; keyChanged?: (keyId: string) => void; planBook?: PlanBook }
): { keys: KeyService; plans: PlanService; operators: OperatorService; views: KeyViews } {
  const limits = keyLimitState(counters)
  // The CLI reads the plans when it first needs them; a serving process hands in the book it keeps fresh.
  const planBook = options.planBook ?? new PlanBook(storage.plans)
  const views = new KeyViews(limits, options.lastUsed, planBook)
  const keys = new KeyService({
    store: options.keys ?? storage.keys,
    audit: storage.audit,
    clock,
    limits,
    views,
    plans: storage.plans,
    planBook,
    keyChanged: options.keyChanged
  })
  const plans = new PlanService(storage.plans, clock, () => void planBook.refresh().catch(() => {}))
  return { keys, plans, operators: new OperatorService(storage.operators, clock), views }
}

/** What only the operator API reads: keys listed, banned and ranked, and the audit log. */
export function operatorReads(
  keys: KeyStore,
  storage: Storage,
  clock: Clock,
  parts: { counters: CounterReader; views: KeyViews; usage: UsageService }
): { directory: KeyDirectory; audit: AuditLog } {
  const directory = new KeyDirectory(keys, clock, { limits: keyLimitState(parts.counters), views: parts.views, usage: parts.usage })
  return { directory, audit: new AuditLog(storage.audit) }
}
