import { NoQuery } from '../pets.ts'
import { AuditEvents, ListAuditQuery } from './audit.ts'
import { EXAMPLE_AUDIT_EVENT, EXAMPLE_BANNED_KEY, EXAMPLE_BUCKETS, EXAMPLE_KEY, EXAMPLE_OPERATOR } from './examples.ts'
import { KeyIdParams } from './keys/queries.ts'
import { BannedKeys } from './keys/schemas.ts'
import { operation } from './operation.ts'
import { Operator } from './operators.ts'
import { TopKeysOrCustomers, TopKeysQuery, UsageBuckets, UsageQuery } from './usage/schemas.ts'

// The operator API's reports: usage over time, top keys, bans now, the audit log, and who is signed in.

const KEY_ID = { id: EXAMPLE_KEY.id }
const USAGE_PARAMETERS = { from: '2026-11-27T10:00:00Z', to: '2026-11-27T10:03:00Z', granularity: 'minute' }

export const getKeyUsage = operation({
  operationId: 'getKeyUsage',
  method: 'GET',
  path: '/keys/{id}/usage',
  summary: "A key's usage over time",
  description: "The key's requests by outcome in every bucket of [from, to), empty ones included (at most 3,000 buckets).",
  tag: 'Usage',
  role: 'viewer',
  params: KeyIdParams,
  query: UsageQuery,
  success: { status: 200, description: 'Buckets, oldest first', schema: UsageBuckets, headers: [] },
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: { ...KEY_ID, ...USAGE_PARAMETERS }, success: EXAMPLE_BUCKETS }
})

export const getUsage = operation({
  operationId: 'getUsage',
  method: 'GET',
  path: '/usage',
  summary: 'Usage of every key over time',
  description: 'Requests by outcome summed over every key, in every bucket of [from, to), empty ones included (at most 3,000 buckets).',
  tag: 'Usage',
  role: 'viewer',
  query: UsageQuery,
  success: { status: 200, description: 'Buckets, oldest first', schema: UsageBuckets, headers: [] },
  errors: ['validation_failed'],
  examples: { parameters: USAGE_PARAMETERS, success: EXAMPLE_BUCKETS }
})

export const listTopKeys = operation({
  operationId: 'listTopKeys',
  method: 'GET',
  path: '/usage/top',
  summary: 'Keys or customers with the most requests',
  description:
    'The keys (or with `group=customer` the customers, their keys summed) with the most allowed (or refused) requests over [from, to), most first.',
  tag: 'Usage',
  role: 'viewer',
  query: TopKeysQuery,
  success: { status: 200, description: 'Keys (or customers) and their requests by outcome', schema: TopKeysOrCustomers, headers: [] },
  errors: ['validation_failed'],
  examples: {
    parameters: { from: '2026-11-26T10:00:00Z', to: '2026-11-27T10:00:00Z', by: 'refused', group: 'key', limit: 10 },
    success: [{ key: EXAMPLE_BANNED_KEY, allowed: 412, rateLimited: 60, banned: 10, quotaExceeded: 0 }]
  }
})

export const listBans = operation({
  operationId: 'listBans',
  method: 'GET',
  path: '/bans',
  summary: 'Keys banned now',
  description: 'Every key under a temporary ban now, the soonest to end first.',
  tag: 'Keys',
  role: 'viewer',
  query: NoQuery,
  success: { status: 200, description: 'Banned keys', schema: BannedKeys, headers: [] },
  errors: ['validation_failed'],
  examples: { success: [EXAMPLE_BANNED_KEY] }
})

export const listAuditEvents = operation({
  operationId: 'listAuditEvents',
  method: 'GET',
  path: '/audit',
  summary: 'The audit log',
  description: 'Every change to a key or an operator, from the API or the CLI, newest first; paged with `Link: <...>; rel="next"`.',
  tag: 'Audit',
  role: 'viewer',
  query: ListAuditQuery,
  success: { status: 200, description: 'A page of audit events', schema: AuditEvents, headers: ['Link'] },
  errors: ['validation_failed', 'invalid_cursor'],
  examples: {
    parameters: {
      actor: 'Dana (support)',
      target: EXAMPLE_KEY.id,
      action: 'key.update',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-28T00:00:00Z',
      limit: 50
    },
    success: [EXAMPLE_AUDIT_EVENT]
  }
})

export const getCurrentOperator = operation({
  operationId: 'getCurrentOperator',
  method: 'GET',
  path: '/me',
  summary: 'The operator signed in',
  description: 'The operator the token belongs to, and their role: how a client signs in and learns what it may do.',
  tag: 'Operators',
  role: 'viewer',
  query: NoQuery,
  success: { status: 200, description: 'The operator', schema: Operator, headers: [] },
  errors: ['validation_failed'],
  examples: { success: EXAMPLE_OPERATOR }
})
