import pino, { type Logger } from 'pino'

/** Paths that may hold a secret; pino replaces them before a line is written. */
export const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'secret']

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'animal-store' } }, destination)
}
