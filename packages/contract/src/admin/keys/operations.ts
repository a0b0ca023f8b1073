import { NoQuery } from '../../pets.ts'
import { EXAMPLE_BANNED_KEY, EXAMPLE_KEY, EXAMPLE_SECRET } from '../examples.ts'
import { KeyIdParams, ListKeysQuery } from './queries.ts'
import { Key, KeyPatch, KeyRotation, Keys, KeyWithSecret, NewKey } from './schemas.ts'
import { BODY_ERRORS, operation } from '../operation.ts'

// The operator API's operations on keys: list, create, get, change, rotate, revoke, unban.

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
  examples: {
    parameters: { search: 'acme', plan: 'pro', customer: EXAMPLE_KEY.customerId, state: 'active', limit: 50 },
    success: [EXAMPLE_KEY]
  }
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
    success: { ...EXAMPLE_KEY, usage: { minute: 0, day: 0, month: 0 }, lastUsedAt: null, key: EXAMPLE_SECRET }
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
    success: { ...EXAMPLE_KEY, plan: 'business', limits: { perMinute: 1000, perDay: 100000, perMonth: null } }
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
