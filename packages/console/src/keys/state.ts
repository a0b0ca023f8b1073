import type { Key, KeyState } from '@animal-store/contract'

/** The state the `state` filter of listKeys would put the key in: revoked, then expired, then banned, else active. */
export function keyState(key: Key, now: number): KeyState {
  if (key.revokedAt !== null) return 'revoked'
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired'
  if (key.bannedUntil !== null && Date.parse(key.bannedUntil) > now) return 'banned'
  return 'active'
}

/** What the console calls a key: its name, or its id when it has none. */
export function keyTitle(key: Pick<Key, 'id' | 'name'>): string {
  return key.name === null || key.name === '' ? key.id : key.name
}
