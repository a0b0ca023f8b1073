import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ERROR_STATUS, type ErrorCode } from '@animal-store/contract'
import { errorBody } from './error-body.ts'
import { closeAfterAnswer, drainAfter, drainWithin, endAndDrain, hasUnreadBody } from '../connections/lingering-close.ts'
import { requestId } from '../requests/request-context.ts'

/** Sockets already answered: the parser reports each later chunk as another error. */
const answered = new WeakSet<Socket>()

/** Node's parser errors, as our codes and messages. */
function describeClientError(error: NodeJS.ErrnoException): [ErrorCode, string] {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request_timeout', 'the request was not received in time']
    case 'HPE_HEADER_OVERFLOW':
      return ['header_fields_too_large', 'the request line and headers (a long URL included) are larger than the server accepts']
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return ['payload_too_large', 'the chunk extensions of the body are larger than the server accepts']
    default:
      return ['bad_request', 'the request is not valid HTTP/1.1']
  }
}

/** A whole response, head and Error body, for a socket no response object writes to. */
function rawErrorResponse(code: ErrorCode, message: string, id: string): string {
  const status = ERROR_STATUS[code]
  const body = JSON.stringify(errorBody(code, message))
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${id}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close'
  ]
  return `${head.join('\r\n')}\r\n\r\n${body}`
}

/**
 * Answers a request Node's HTTP parser refused (malformed, too slow, headers too large)
 * straight on the socket, since no request object exists; the body is still our Error.
 */
export function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return
  answered.add(socket)
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  // The answer to an earlier, complete request is being made (bad bytes pipelined behind a
  // create): it goes first and closes the connection, so its client never takes this 400 for it.
  if (socket.writable && inFlight?.headersSent === false && inFlight.req.complete) {
    drainAfter(inFlight, socket)
    return
  }
  // The answer is out and closes the connection (a refusal sent while the body, now found
  // malformed, was arriving, or any answer to an HTTP/1.0 or 2.0 request line): it is the last
  // answer; only the drain is left. Behind a kept-alive answer the bytes are a next request,
  // answered like any other.
  const closing = inFlight?.headersSent === true && (inFlight.getHeader('connection') === 'close' || !inFlight.shouldKeepAlive)
  if (!socket.writable || closing) {
    drainWithin(socket)
    return
  }
  const [code, message] = describeClientError(error)
  endAndDrain(socket, rawErrorResponse(code, message, randomUUID()))
}

/**
 * What Node would answer bare or not at all gets an Error body: an `Expect` other than
 * 100-continue (Node: 417, empty) and `CONNECT` (Node: the connection dropped). An upgrade
 * request with no listener is served as an ordinary request, and the missing `Host` is the
 * request guard's (Node's own check is off).
 */
export function registerParserAnswers(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    if (hasUnreadBody(request)) closeAfterAnswer(request, response)
    const body = JSON.stringify(
      errorBody('expectation_failed', `Expect: ${request.headers.expect ?? ''} is not supported; only 100-continue is`)
    )
    response.writeHead(ERROR_STATUS.expectation_failed, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId(request),
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store'
    })
    response.end(body)
  })
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    answered.add(socket)
    endAndDrain(socket, rawErrorResponse('bad_request', 'CONNECT is not supported: this service is not a proxy', requestId(request)))
  })
}
