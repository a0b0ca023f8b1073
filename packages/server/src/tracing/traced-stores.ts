import type { Maybe } from '../base/maybe.ts'
import type { SpanAttributes, Tracing } from '../base/tracing.ts'
import type { CounterStore } from '../limits/types.ts'
import type { Storage } from '../storage/types.ts'

/** The database as the semantic conventions name it (`db.system.name`). */
export type DatabaseSystem = 'sqlite' | 'postgresql'

/** Which requests can make a call that the wrappers below give a child span. */
export type ChildSpans = 'every request' | 'writes'

/**
 * Every request, when it looks keys up in PostgreSQL or consumes from Redis; only writes on SQLite
 * with in-process counters, where the create is the one call that waits.
 */
export function childSpansOf(system: DatabaseSystem, sharedCounters: boolean): ChildSpans {
  return system === 'sqlite' && !sharedCounters ? 'writes' : 'every request'
}

/**
 * The storage with a child span around each call a request makes that waits: on PostgreSQL every
 * call (pets, key lookups, Idempotency-Key claims), on SQLite the create (it waits for the batch's
 * fsync). SQLite's reads and claims run in-process in microseconds, without waiting: a span would
 * cost a sampled request more than the call. Attributes name the operation and table, never a value.
 */
export function tracedStorage(storage: Storage, tracing: Tracing, system: DatabaseSystem): Storage {
  // Made once: a call made outside a recorded request then allocates nothing for its span.
  const span = (operation: string, table: string) => ({
    name: `${operation} ${table}`,
    attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.collection.name': table } as SpanAttributes
  })
  const [insertPets, selectPets, selectKeys, claimKeys] = [
    span('INSERT', 'pets'),
    span('SELECT', 'pets'),
    span('SELECT', 'api_keys'),
    span('CLAIM', 'idempotency_keys')
  ]
  const { pets, keys, idempotency } = storage
  // A promise in, a promise out: the span only waits on it.
  const promised = <T>(value: Maybe<T>) => value as Promise<T>
  const waits = system !== 'sqlite'
  return {
    pets: {
      create: (pet, completion) => promised(tracing.child(insertPets.name, insertPets.attributes, () => pets.create(pet, completion))),
      page: waits ? (query) => tracing.child(selectPets.name, selectPets.attributes, () => pets.page(query)) : (query) => pets.page(query),
      get: waits ? (id) => tracing.child(selectPets.name, selectPets.attributes, () => pets.get(id)) : (id) => pets.get(id)
    },
    keys: {
      create: (key, hash, audit, customer) => keys.create(key, hash, audit, customer),
      findByHash: waits
        ? (hash) => promised(tracing.child(selectKeys.name, selectKeys.attributes, () => keys.findByHash(hash)))
        : (hash) => keys.findByHash(hash),
      get: (id) => keys.get(id),
      list: () => keys.list(),
      page: (query) => keys.page(query),
      revoke: (id, at, audit) => keys.revoke(id, at, audit),
      update: (id, changes, audit) => keys.update(id, changes, audit),
      rotate: (id, rotation, audit) => keys.rotate(id, rotation, audit)
    },
    idempotency: {
      claim: waits
        ? (...args) => promised(tracing.child(claimKeys.name, claimKeys.attributes, () => idempotency.claim(...args)))
        : (...args) => idempotency.claim(...args),
      release: (scope, token) => idempotency.release(scope, token),
      purge: (before) => idempotency.purge(before)
    },
    // Usage history, operators, the audit log, plans and customers are written and read off the request path: no spans.
    usage: storage.usage,
    operators: storage.operators,
    audit: storage.audit,
    plans: storage.plans,
    customers: storage.customers,
    migrate: () => storage.migrate(),
    ping: () => storage.ping(),
    close: () => storage.close()
  }
}

/** The shared counter store with a child span around each consume (one Redis script call per turn). */
export function tracedCounters(counters: CounterStore, tracing: Tracing): CounterStore {
  const attributes = { 'db.system.name': 'redis', 'db.operation.name': 'EVALSHA' }
  return {
    consume: (request) => tracing.child('EVALSHA rate-limit', attributes, () => counters.consume(request)),
    usage: (subject, now) => counters.usage(subject, now),
    unban: (subject, now) => counters.unban(subject, now),
    bans: (now) => counters.bans(now),
    close: () => counters.close()
  }
}
