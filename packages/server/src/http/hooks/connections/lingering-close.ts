import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** After an answer sent before its request's body was read, at most this much more is read ... */
export const LINGER_MAX_BYTES = 1024 * 1024
/** ... for at most this long (RFC 9112 §9.6), then the connection is closed. */
const LINGER_MAX_MS = 2000

/** The request announced a body (Content-Length above 0, or chunked) and it has not all arrived. */
export function hasUnreadBody(request: IncomingMessage): boolean {
  if (request.complete) return false
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** Destroys the socket at the deadline, unless it closes first. */
function closeWithin(socket: Socket, ms: number): void {
  // An I/O deadline, like Node's own socket timeouts: not a rule of the service, so not the Clock's.
  const deadline = setTimeout(() => socket.destroy(), ms)
  deadline.unref()
  socket.once('close', () => clearTimeout(deadline))
}

/**
 * The answer to a request whose body is still arriving: marked `Connection: close`; the body is
 * read (and dropped) from now on, and once the answer is written and the write side shut, for
 * at most the bounds before the socket is destroyed. Closing at once with unread bytes makes the
 * kernel reset the connection, and the client, still writing, loses the answer; reading on to
 * the end (what Node does for a kept-alive connection) lets one client stream gigabytes into a
 * refused request. Reading starts here, not after the answer, or Node would drop the body
 * unseen and uncounted.
 */
export function closeAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close')
  const socket = request.socket
  let read = 0
  // Past the byte bound, reading stops: the client's writes block on TCP flow control instead of
  // meeting a reset, and it reads the answer meanwhile.
  request.on('data', (chunk: Buffer) => {
    read += chunk.length
    if (read > LINGER_MAX_BYTES) request.pause()
  })
  request.once('error', () => socket.destroy())
  response.once('finish', () => {
    // Node's own 'finish' handler ran first: socket.destroySoon(), that is end, then destroy,
    // which is right once the body was read to its end.
    if (request.readableEnded) return
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the very function destroySoon registered
    socket.removeListener('finish', socket.destroy)
    // Everything the client sent was read: closing now resets nothing.
    request.once('end', () => socket.destroy())
    closeWithin(socket, LINGER_MAX_MS)
  })
}

/**
 * The answer to what Node's parser refused (no request object exists): written, the write side
 * shut, and what the client still sends drained within the same bounds.
 */
export function endAndDrain(socket: Socket, answer: string): void {
  socket.end(answer)
  drainWithin(socket)
}

/** What the client still sends on a socket whose answer is written or on its way: read within the bounds, then the socket destroyed. */
export function drainWithin(socket: Socket): void {
  limitReads(socket)
  closeWithin(socket, LINGER_MAX_MS)
}

/** From now on, at most the byte bound more is read from the socket. */
function limitReads(socket: Socket): void {
  const start = socket.bytesRead
  socket.on('data', () => {
    if (socket.bytesRead - start > LINGER_MAX_BYTES) socket.pause()
  })
}

/**
 * The answer still being made for an earlier request on the socket goes out first, and closes
 * the connection; reads are bounded meanwhile, and the drain deadline runs from its end.
 */
export function drainAfter(response: ServerResponse, socket: Socket): void {
  if (!response.headersSent) response.setHeader('connection', 'close')
  limitReads(socket)
  response.once('finish', () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the very function destroySoon registered
    socket.removeListener('finish', socket.destroy)
    closeWithin(socket, LINGER_MAX_MS)
  })
}
