import { randomId, randomSecret, SECRET_LENGTH, sha256Hex } from '../secrets.ts'

/** The recognisable prefix of every secret, so secret scanners can find leaked keys. */
const KEY_PREFIX = 'as_live_'
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`)
const ID_SHAPE = /^key_[0-9A-Za-z]{16}$/

export function generateSecret(): string {
  return randomSecret(KEY_PREFIX)
}

/** The first characters of a secret, safe to show. */
export const prefixOf = (secret: string) => secret.slice(0, KEY_PREFIX.length + 4)

export function generateId(): string {
  return randomId('key_')
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret)
}

/** True when the text has the shape of a key id we issue: anything else names no key. */
export function looksLikeKeyId(id: string): boolean {
  return ID_SHAPE.test(id)
}

/** True when the text has the shape of a key we issue; anything else is refused before any lookup. */
export function looksLikeKey(secret: string): boolean {
  return KEY_SHAPE.test(secret)
}
