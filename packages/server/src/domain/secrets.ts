import { createHash, randomBytes, randomInt } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** 32 random bytes (256 bits) written in base62 always fit in 43 characters. */
export const SECRET_LENGTH = 43

/** A secret: `prefix` (recognisable by secret scanners) and 32 random bytes in base62, 43 characters. */
export function randomSecret(prefix: string): string {
  let n = BigInt(`0x${randomBytes(32).toString('hex')}`)
  let out = ''
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return prefix + out.padStart(SECRET_LENGTH, '0')
}

/** An id: `prefix` and 16 random base62 characters (not a secret). */
export function randomId(prefix: string): string {
  let id = prefix
  for (let i = 0; i < 16; i++) id += BASE62[randomInt(62)]
  return id
}

/** The SHA-256 of a secret in hex: all that is stored of it. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}
