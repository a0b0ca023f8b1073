import type { ApiKeyRecord } from '../../storage/keys/types.ts'
import type { KeyView } from './views.ts'
import type { Actor } from '../actor.ts'

export type KeyAction = 'key.create' | 'key.update' | 'key.rotate' | 'key.revoke' | 'key.unban'

interface FieldChange<T> {
  from: T
  to: T
}

/** The stored fields an update changed, in the operator API's words; `perMinute`/`perDay` null means the plan's number. */
export interface KeyFieldChanges {
  plan?: FieldChange<string>
  name?: FieldChange<string | null>
  perMinute?: FieldChange<number | null>
  perDay?: FieldChange<number | null>
  /** The customer's own monthly quota; null: none of its own. */
  perMonth?: FieldChange<number | null>
  expiresAt?: FieldChange<string | null>
  /** Space-separated. */
  scopes?: FieldChange<string>
}

/**
 * A change the key service made, shaped as the audit log records it (design.md §6 AuditEvent,
 * less its id and what only the transport knows: request id, address, user agent).
 */
export interface KeyEvent {
  action: KeyAction
  actor: Actor
  target: { type: 'key'; id: string; name: string | null }
  /** `{field: {from, to}}` for `key.update`, else `{}`. */
  changes: KeyFieldChanges
  /** ISO 8601, UTC. */
  at: string
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** Each field whose stored value differs between `before` and `after`. */
export function fieldChanges(before: ApiKeyRecord, after: ApiKeyRecord): KeyFieldChanges {
  const changes: KeyFieldChanges = {}
  if (before.plan !== after.plan) changes.plan = { from: before.plan, to: after.plan }
  if (before.name !== after.name) changes.name = { from: before.name, to: after.name }
  if (before.perMinute !== after.perMinute) changes.perMinute = { from: before.perMinute, to: after.perMinute }
  if (before.perDay !== after.perDay) changes.perDay = { from: before.perDay, to: after.perDay }
  if (before.perMonth !== after.perMonth) changes.perMonth = { from: before.perMonth, to: after.perMonth }
  if (before.expiresAt !== after.expiresAt) changes.expiresAt = { from: iso(before.expiresAt), to: iso(after.expiresAt) }
  const [from, to] = [before.scopes.join(' '), after.scopes.join(' ')]
  if (from !== to) changes.scopes = { from, to }
  return changes
}

/** The event of `action` by `actor` on `key` at `now`. */
export function keyEvent(action: KeyAction, actor: Actor, key: ApiKeyRecord, now: number, changes: KeyFieldChanges = {}): KeyEvent {
  return { action, actor, target: { type: 'key', id: key.id, name: key.name }, changes, at: new Date(now).toISOString() }
}

/** A change the service made: the key after it, and the change as the audit log records it. */
export interface ChangedKey {
  view: KeyView
  event: KeyEvent
}

/** A change that issued a secret (create, rotate): `key` is shown this once and stored only as a hash. */
export interface IssuedKey extends ChangedKey {
  key: string
}

/** A revocation: `event` is null when the key was already revoked, which changes nothing and succeeds. */
export interface KeyRevocation {
  view: KeyView
  event: KeyEvent | null
}
