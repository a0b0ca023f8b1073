// The operator API's operations (DESIGN §6 and §8; paths relative to /admin/v1), typed by the contract.
import type {
  AuditEvent,
  Customer,
  CustomerPatch,
  Key,
  KeyPatch,
  KeyRotation,
  KeyWithSecret,
  ListAuditQuery,
  ListCustomersQuery,
  ListKeysQuery,
  NewCustomer,
  NewKey,
  NewPlan,
  Operator,
  Plan,
  PlanPatch,
  TopKey,
  TopKeysQuery,
  UsageBucket,
  UsageExportQuery,
  UsageQuery
} from '@animal-store/contract'
import type { Answer, Send } from './transport.ts'

export interface Page<T> {
  items: T[]
  next: string | null
}

const page = <T>(answer: Answer<T[]>): Page<T> => ({ items: answer.body, next: answer.next })
const body = <T>(answer: Answer<T>): T => answer.body
const keyPath = (id: string, rest = '') => `/keys/${encodeURIComponent(id)}${rest}`
const planPath = (id: string) => `/plans/${encodeURIComponent(id)}`
const customerPath = (id: string, rest = '') => `/customers/${encodeURIComponent(id)}${rest}`

export function operatorApi(send: Send) {
  return {
    currentOperator: (signal?: AbortSignal) => send<Operator>('GET', '/me', { signal }).then(body),
    listKeys: (query: ListKeysQuery, signal?: AbortSignal) => send<Key[]>('GET', '/keys', { query, signal }).then(page),
    createKey: (newKey: NewKey) => send<KeyWithSecret>('POST', '/keys', { body: newKey }).then(body),
    getKey: (id: string, signal?: AbortSignal) => send<Key>('GET', keyPath(id), { signal }).then(body),
    updateKey: (id: string, patch: KeyPatch) => send<Key>('PATCH', keyPath(id), { body: patch }).then(body),
    rotateKey: (id: string, rotation: KeyRotation) => send<KeyWithSecret>('POST', keyPath(id, '/rotate'), { body: rotation }).then(body),
    revokeKey: (id: string) => send<Key>('POST', keyPath(id, '/revoke')).then(body),
    unbanKey: (id: string) => send<Key>('POST', keyPath(id, '/unban')).then(body),
    listPlans: (signal?: AbortSignal) => send<Plan[]>('GET', '/plans', { signal }).then(body),
    createPlan: (newPlan: NewPlan) => send<Plan>('POST', '/plans', { body: newPlan }).then(body),
    updatePlan: (id: string, patch: PlanPatch) => send<Plan>('PATCH', planPath(id), { body: patch }).then(body),
    deletePlan: (id: string) => send<undefined>('DELETE', planPath(id)).then(() => undefined),
    listCustomers: (query: ListCustomersQuery, signal?: AbortSignal) => send<Customer[]>('GET', '/customers', { query, signal }).then(page),
    createCustomer: (newCustomer: NewCustomer) => send<Customer>('POST', '/customers', { body: newCustomer }).then(body),
    getCustomer: (id: string, signal?: AbortSignal) => send<Customer>('GET', customerPath(id), { signal }).then(body),
    updateCustomer: (id: string, patch: CustomerPatch) => send<Customer>('PATCH', customerPath(id), { body: patch }).then(body),
    unbanCustomer: (id: string) => send<Customer>('POST', customerPath(id, '/unban')).then(body),
    customerUsage: (id: string, query: UsageQuery, signal?: AbortSignal) =>
      send<UsageBucket[]>('GET', customerPath(id, '/usage'), { query, signal }).then(body),
    keyUsage: (id: string, query: UsageQuery, signal?: AbortSignal) =>
      send<UsageBucket[]>('GET', keyPath(id, '/usage'), { query, signal }).then(body),
    usage: (query: UsageQuery, signal?: AbortSignal) => send<UsageBucket[]>('GET', '/usage', { query, signal }).then(body),
    topKeys: (query: TopKeysQuery, signal?: AbortSignal) => send<TopKey[]>('GET', '/usage/top', { query, signal }).then(body),
    /** The billing export as NDJSON text, as the API streamed it. */
    exportUsage: (query: UsageExportQuery, signal?: AbortSignal) =>
      send<string>('GET', '/usage/export', { query, signal, textType: 'application/x-ndjson' }).then(body),
    listBans: (signal?: AbortSignal) => send<Key[]>('GET', '/bans', { signal }).then(body),
    listAuditEvents: (query: ListAuditQuery, signal?: AbortSignal) => send<AuditEvent[]>('GET', '/audit', { query, signal }).then(page)
  }
}

export type OperatorApi = ReturnType<typeof operatorApi>

/** Every item of a paged list, following the next cursors (for exports: what the filters select, not only one page). */
export async function allPages<T>(load: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const next = await load(cursor)
    items.push(...next.items)
    cursor = next.next ?? undefined
  } while (cursor !== undefined)
  return items
}
