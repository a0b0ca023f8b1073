import pino, { type Logger } from 'pino'

/** Paths that may hold a secret; pino replaces them before a line is written. */
const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'secret']

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'animal-store' } }, destination)
}

const SECRET_IN_TEXT = /as_live_[0-9A-Za-z]+/g

/** A client that puts its key in a URL must not get it logged: the shape is recognisable, so it is masked. */
export function redactSecrets(text: string): string {
  return text.includes('as_live_') ? text.replace(SECRET_IN_TEXT, 'as_live_[redacted]') : text
}
