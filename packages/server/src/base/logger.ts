import pino, { type Logger } from 'pino'

/** Paths that may hold a secret; pino replaces them before a line is written. */
const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'secret', 'token']

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'animal-store' } }, destination)
}

/**
 * Text that may hold a secret: an API key's or an operator token's prefix (any case), or a run
 * of exactly 43 letters and digits standing alone, the length of a secret's random part
 * (`Bearer <it>`, `x.<it>`); longer runs (a SHA-256 in hex) and UUIDs or ULIDs are not.
 */
export const KEY_SHAPED = /as_(?:live|admin)_|(?:^|[^0-9a-z])[0-9a-z]{43}(?![0-9a-z])/i
/** A URL that may hold one: either shape raw, `_` perhaps percent-encoded (anything encoded is decoded first). */
const KEY_SHAPED_RAW = /as(?:_|%5f)(?:live|admin)(?:_|%5f)|[0-9a-z]{43}/i
const URL_TOKEN = /[^/?&=;#+\s]+/g

/** Percent-decodes what decodes, leaves the rest; repeated, so `%255f` comes out as `_`. */
function looseDecode(token: string): string {
  let text = token
  for (let round = 0; round < 4 && text.includes('%'); round++) {
    const next = text.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    if (next === text) break
    text = next
  }
  return text.toLowerCase()
}

/**
 * A client that puts its key in a URL must not get it logged: every path segment or query
 * name or value that is key-shaped (KEY_SHAPED: raw or percent-encoded, even twice) is
 * masked whole.
 */
export function redactSecrets(url: string): string {
  if (!url.includes('%') && !KEY_SHAPED_RAW.test(url)) return url
  return url.replace(URL_TOKEN, (token) => (KEY_SHAPED.test(looseDecode(token)) ? '[redacted]' : token))
}
