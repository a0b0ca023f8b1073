import { isPlanName, PLAN_NAMES } from '@animal-store/contract'
import type { ApiKeyRecord, KeyChanges } from '../storage/types.ts'

export class KeyInputError extends Error {
  override name = 'KeyInputError'
}

/** What `keys update` asks for; undefined fields stay as they are. */
export interface UpdateKeyInput {
  plan?: string | undefined
  name?: string | undefined
  perMinute?: number | undefined
  perDay?: number | undefined
  expiresAt?: string | undefined
  /** Removes the expiry. */
  noExpiry?: boolean | undefined
}

/** The longest grace `keys rotate` gives the old secret: 30 days. */
const MAX_GRACE_SECONDS = 30 * 86_400

/** An ISO 8601 date-time in the future, as Unix milliseconds. */
export function parseExpiry(text: string, now: number): number {
  const at = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at))
    throw new KeyInputError(`--expires-at must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z (got ${JSON.stringify(text)})`)
  if (at <= now) throw new KeyInputError('--expires-at must be in the future')
  return at
}

export function checkName(name: string): string {
  if (name.length > 200 || /[\p{Cc}]/u.test(name))
    throw new KeyInputError('--name must be at most 200 characters with no control characters')
  return name
}

export function positiveLimit(name: string, value: number | undefined): number | null {
  if (value === undefined) return null
  if (!Number.isSafeInteger(value) || value < 1) throw new KeyInputError(`${name} must be a whole number of at least 1`)
  return value
}

/**
 * The changes `input` asks of `key`, checked as a whole before anything is written. A new plan
 * brings its own numbers: overrides the key had are dropped unless given again, and an
 * enterprise key needs both.
 */
export function keyChanges(key: ApiKeyRecord, input: UpdateKeyInput, now: number): KeyChanges {
  if (key.revokedAt !== null) throw new KeyInputError(`key ${key.id} is revoked; revoked keys cannot be changed`)
  const changes: KeyChanges = {}
  if (input.plan !== undefined) {
    if (!isPlanName(input.plan))
      throw new KeyInputError(`--plan must be one of ${PLAN_NAMES.join(', ')} (got ${JSON.stringify(input.plan)})`)
    changes.plan = input.plan
    changes.perMinute = null
    changes.perDay = null
  }
  if (input.perMinute !== undefined) changes.perMinute = positiveLimit('--per-minute', input.perMinute)
  if (input.perDay !== undefined) changes.perDay = positiveLimit('--per-day', input.perDay)
  const plan = changes.plan ?? key.plan
  const perMinute = changes.perMinute === undefined ? key.perMinute : changes.perMinute
  const perDay = changes.perDay === undefined ? key.perDay : changes.perDay
  if (plan === 'enterprise' && (perMinute === null || perDay === null))
    throw new KeyInputError('an enterprise key needs both --per-minute and --per-day')
  if (input.name !== undefined) changes.name = checkName(input.name)
  if (input.expiresAt !== undefined && input.noExpiry === true) throw new KeyInputError('give either --expires-at or --no-expiry, not both')
  if (input.expiresAt !== undefined) changes.expiresAt = parseExpiry(input.expiresAt, now)
  if (input.noExpiry === true) changes.expiresAt = null
  if (Object.keys(changes).length === 0)
    throw new KeyInputError('nothing to change: give --plan, --per-minute, --per-day, --name, --expires-at or --no-expiry')
  return changes
}

/** The grace of `keys rotate`, in whole seconds from 0 to 30 days. */
export function graceSeconds(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_GRACE_SECONDS)
    throw new KeyInputError(`--grace must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`)
  return value
}
