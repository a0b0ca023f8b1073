import pino, { type Logger } from 'pino'

/** Paths that may hold a secret; pino replaces them before a line is written. */
const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'secret', 'token']

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'animal-store' } }, destination)
}

/** An API key's or operator token's prefix, any case; `_` may arrive percent-encoded. */
const KEY_PREFIX_RAW = /as(?:_|%5f)(?:live|admin)(?:_|%5f)/i
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
 * A client that puts its key (or an operator its token) in a URL must not get it logged: every
 * path segment or query name or value that holds either prefix (any case, raw or
 * percent-encoded, even twice) is masked whole.
 */
export function redactSecrets(url: string): string {
  if (!url.includes('%') && !KEY_PREFIX_RAW.test(url)) return url
  return url.replace(URL_TOKEN, (token) => (/as_(?:live|admin)_/.test(looseDecode(token)) ? '[redacted]' : token))
}
