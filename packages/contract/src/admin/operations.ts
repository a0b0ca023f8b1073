import type { OperationSpec } from '../operation-spec.ts'
import { NoQuery } from '../pets.ts'
import { AuditEvents, ListAuditQuery } from './audit.ts'
import type { OperatorErrorCode } from './errors.ts'
import { EXAMPLE_AUDIT_EVENT, EXAMPLE_BANNED_KEY, EXAMPLE_BUCKETS, EXAMPLE_KEY, EXAMPLE_OPERATOR, EXAMPLE_SECRET } from './examples.ts'
import { BannedKeys, Key, KeyIdParams, KeyPatch, KeyRotation, Keys, KeyWithSecret, ListKeysQuery, NewKey } from './keys.ts'
import { Operator, type OperatorRole } from './operators.ts'
import { TopKeys, TopKeysQuery, UsageBuckets, UsageQuery } from './usage.ts'

/** An operation of the operator API: paths are relative to `/admin/v1`; `role` is the least role that may call it. */
export interface AdminOperationSpec extends OperationSpec<OperatorErrorCode> {
  role: OperatorRole
}

/** Errors any operator operation can answer with (429: too many failed sign-ins from the address). */
export const ADMIN_COMMON_ERRORS: OperatorErrorCode[] = ['unauthorized', 'forbidden', 'rate_limited', 'internal_error', 'unavailable']

const BODY_ERRORS: OperatorErrorCode[] = ['bad_request', 'validation_failed', 'payload_too_large', 'unsupported_media_type']

function operation(spec: Omit<AdminOperationSpec, 'tags' | 'never' | 'extensions'> & { tag: string }): AdminOperationSpec {
  const { tag, ...rest } = spec
  return {
    ...rest,
    description: `${spec.description} Needs the \`${spec.role}\` role.`,
    tags: [tag],
    // Every role may read: only writes can be forbidden.
    never: spec.role === 'viewer' ? ['forbidden'] : [],
    extensions: { 'x-required-role': spec.role }
  }
}

const KEY_ID = { id: EXAMPLE_KEY.id }
const KEY = (headers: ['Link'] | [] = []) => ({ status: 200, description: 'The key', schema: Key, headers: [...headers] })

export const listKeys = operation({
  operationId: 'listKeys',
  method: 'GET',
  path: '/keys',
  summary: 'List keys',
  description: 'Keys, newest first, filtered by search text, plan and state; paged with `Link: <...>; rel="next"`.',
  tag: 'Keys',
  role: 'viewer',
  query: ListKeysQuery,
  success: { status: 200, description: 'A page of keys', schema: Keys, headers: ['Link'] },
  errors: ['validation_failed', 'invalid_cursor'],
  examples: { parameters: { search: 'acme', plan: 'pro', state: 'active', limit: 50 }, success: [EXAMPLE_KEY] }
})

export const createKey = operation({
  operationId: 'createKey',
  method: 'POST',
  path: '/keys',
  summary: 'Create a key',
  description: 'Creates an API key and answers its secret, this once (only its SHA-256 hash is stored).',
  tag: 'Keys',
  role: 'admin',
  query: NoQuery,
  body: NewKey,
  success: { status: 201, description: 'The key, with its secret shown this once', schema: KeyWithSecret, headers: [] },
  errors: BODY_ERRORS,
  examples: {
    body: { plan: 'pro', name: 'Acme production' },
    success: { ...EXAMPLE_KEY, usage: { minute: 0, day: 0 }, lastUsedAt: null, key: EXAMPLE_SECRET }
  }
})

export const getKey = operation({
  operationId: 'getKey',
  method: 'GET',
  path: '/keys/{id}',
  summary: 'Get a key',
  description: 'One key, with its current usage and any ban.',
  tag: 'Keys',
  role: 'viewer',
  params: KeyIdParams,
  query: NoQuery,
  success: KEY(),
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: KEY_ID, success: EXAMPLE_KEY }
})

export const updateKey = operation({
  operationId: 'updateKey',
  method: 'PATCH',
  path: '/keys/{id}',
  summary: 'Change a key',
  description: 'Changes the key in place (same secret); every instance applies it within 5 seconds. Usage and any ban are kept.',
  tag: 'Keys',
  role: 'admin',
  params: KeyIdParams,
  query: NoQuery,
  body: KeyPatch,
  success: KEY(),
  errors: [...BODY_ERRORS, 'not_found'],
  examples: {
    parameters: KEY_ID,
    body: { plan: 'business' },
    success: { ...EXAMPLE_KEY, plan: 'business', limits: { perMinute: 1000, perDay: 100000 } }
  }
})

export const rotateKey = operation({
  operationId: 'rotateKey',
  method: 'POST',
  path: '/keys/{id}/rotate',
  summary: 'Rotate a key',
  description: 'Issues a new secret for the key (same id, plan, usage and ban); the replaced one works for `graceSeconds` more.',
  tag: 'Keys',
  role: 'admin',
  params: KeyIdParams,
  query: NoQuery,
  body: KeyRotation,
  bodyRequired: false,
  success: { status: 200, description: 'The key, with its new secret shown this once', schema: KeyWithSecret, headers: [] },
  errors: [...BODY_ERRORS, 'not_found'],
  examples: {
    parameters: KEY_ID,
    body: { graceSeconds: 3600 },
    success: { ...EXAMPLE_KEY, previousSecretExpiresAt: '2026-11-27T11:15:00.000Z', key: EXAMPLE_SECRET }
  }
})

export const revokeKey = operation({
  operationId: 'revokeKey',
  method: 'POST',
  path: '/keys/{id}/revoke',
  summary: 'Revoke a key',
  description:
    'Revokes the key: refused at once by the instance that answered, by every instance within 5 seconds. Revoking a revoked key changes nothing.',
  tag: 'Keys',
  role: 'admin',
  params: KeyIdParams,
  query: NoQuery,
  success: KEY(),
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: KEY_ID, success: { ...EXAMPLE_KEY, revokedAt: '2026-11-27T10:15:00.000Z' } }
})

export const unbanKey = operation({
  operationId: 'unbanKey',
  method: 'POST',
  path: '/keys/{id}/unban',
  summary: 'Lift a ban',
  description: "Lifts the key's temporary ban and clears its refusal count; a key that is not banned is answered as it is.",
  tag: 'Keys',
  role: 'admin',
  params: KeyIdParams,
  query: NoQuery,
  success: KEY(),
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: KEY_ID, success: { ...EXAMPLE_BANNED_KEY, bannedUntil: null } }
})

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
  summary: 'Keys with the most requests',
  description: 'The keys with the most allowed (or refused) requests over [from, to), most first.',
  tag: 'Usage',
  role: 'viewer',
  query: TopKeysQuery,
  success: { status: 200, description: 'Keys and their requests by outcome', schema: TopKeys, headers: [] },
  errors: ['validation_failed'],
  examples: {
    parameters: { from: '2026-11-26T10:00:00Z', to: '2026-11-27T10:00:00Z', by: 'refused', limit: 10 },
    success: [{ key: EXAMPLE_BANNED_KEY, allowed: 412, rateLimited: 60, banned: 10 }]
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

export const ADMIN_OPERATIONS: readonly AdminOperationSpec[] = [
  listKeys,
  createKey,
  getKey,
  updateKey,
  rotateKey,
  revokeKey,
  unbanKey,
  getKeyUsage,
  getUsage,
  listTopKeys,
  listBans,
  listAuditEvents,
  getCurrentOperator
]
