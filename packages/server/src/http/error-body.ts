import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@animal-store/contract'
import { endAndDrain } from './lingering-close.ts'

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_STATUS[code] }
}

/** Sockets already answered: the parser reports each later chunk as another error. */
const answered = new WeakSet<Socket>()

/**
 * Answers a request Node's HTTP parser refused (malformed, too slow, headers too large)
 * straight on the socket, since no request object exists; the body is still our Error.
 */
export function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return
  answered.add(socket)
  const [code, message]: [ErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'the request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['header_fields_too_large', 'the request line and headers (a long URL included) are larger than the server accepts']
        : ['bad_request', 'the request is not valid HTTP/1.1']
  const status = ERROR_STATUS[code]
  const body = JSON.stringify(errorBody(code, message))
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close'
  ]
  endAndDrain(socket, `${head.join('\r\n')}\r\n\r\n${body}`)
}
