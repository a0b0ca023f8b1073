import { connect } from 'node:net'

export interface RawUpload {
  /** Body bytes written before the server closed the connection. */
  written: number
  ms: number
  /** Everything the server sent, as text. */
  answer: string
}

/**
 * A client that sends `head` (framed by the caller), then ignores the answer and the server's FIN
 * and keeps writing up to `declared` body bytes until the server closes the connection.
 */
export function uploadUntilClosed(port: number, head: string, declared: number): Promise<RawUpload> {
  return new Promise((resolve) => {
    const started = performance.now()
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const chunk = Buffer.alloc(64 * 1024, 0x61)
    let written = 0
    let answer = ''
    let open = true
    const pump = () => {
      while (open && written < declared) {
        written += chunk.length
        if (!socket.write(chunk)) return void socket.once('drain', pump)
      }
    }
    socket.on('data', (data: Buffer) => (answer += data.toString('utf8')))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      open = false
      resolve({ written, ms: performance.now() - started, answer })
    })
    socket.write(head)
    pump()
  })
}
