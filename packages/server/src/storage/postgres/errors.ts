import { StorageUnavailableError } from '../types.ts'

// Socket-level failures: the server is down, unreachable or went away mid-query.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT'
])

// SQLSTATEs that say "not now" rather than "never": the same request may succeed later.
// 08: connection exceptions; 53: insufficient resources (too many connections, disk full);
// 57P01-57P05: admin/crash shutdown, cannot connect now, idle session timeout;
// 57014: statement timeout (or a cancel); 25P03: idle-in-transaction timeout.
const TRANSIENT_SQLSTATE = /^(08|53|57P0)|^57014$|^25P03$/

// pg reports these without any code: a dead or closed connection, or a full pool.
const DRIVER_MESSAGES = new RegExp(
  `^(${[
    'Connection terminated',
    'timeout exceeded when trying to connect',
    'Query read timeout',
    'Client has encountered a connection error',
    'Client was closed',
    'Cannot use a pool after calling end'
  ].join('|')})`
)

/** True when the error says PostgreSQL cannot be reached or cannot serve right now. */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true
  if (DRIVER_MESSAGES.test(error.message)) return true
  // Node reports a refused dual-stack connect (localhost: ::1 and 127.0.0.1) as an AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isUnavailable)
  return false
}

/** Rethrows a connection-level failure as StorageUnavailableError (answered 503), anything else as is. */
export function translateError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !isUnavailable(error)) return error
  const reason = (error as Error).message || (error as { code?: string }).code || 'unknown error'
  return new StorageUnavailableError(`PostgreSQL is unavailable: ${reason}`, { cause: error })
}
