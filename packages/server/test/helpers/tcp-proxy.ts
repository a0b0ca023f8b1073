import { connect, createServer, type Server, type Socket } from 'node:net'
import { freePort } from './temp.ts'

/**
 * A TCP forwarder in front of a real server, so a test can take "the database" away and bring
 * it back on the same address: `down()` cuts every live connection and refuses new ones, as a
 * stopped server does; `stall()` accepts connections and never answers, as a dead host does.
 */
export class TcpProxy {
  readonly port: number
  readonly #target: { host: string; port: number }
  readonly #sockets = new Set<Socket>()
  #server: Server | undefined
  #stalled = false

  private constructor(port: number, target: { host: string; port: number }) {
    this.port = port
    this.#target = target
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    // A port below the ephemeral range, so that it stays free while the proxy is down between tests' cuts.
    const proxy = new TcpProxy(await freePort(), target)
    await proxy.up()
    return proxy
  }

  /** Listens (again) and forwards. */
  async up(): Promise<void> {
    this.#stalled = false
    if (this.#server !== undefined) return
    const server = createServer((client) => this.#accept(client))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', resolve)
    })
    this.#server = server
  }

  /** Stops listening and cuts every connection. */
  async down(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    for (const socket of this.#sockets) socket.destroy()
    this.#sockets.clear()
    if (server !== undefined) await new Promise((resolve) => server.close(resolve))
  }

  /** Cuts every connection; new ones are accepted and left unanswered. */
  async stall(): Promise<void> {
    await this.up()
    this.#stalled = true
    for (const socket of this.#sockets) socket.destroy()
    this.#sockets.clear()
  }

  #accept(client: Socket): void {
    this.#sockets.add(client)
    client.on('error', () => {})
    client.on('close', () => this.#sockets.delete(client))
    if (this.#stalled) return
    const upstream = connect(this.#target.port, this.#target.host)
    this.#sockets.add(upstream)
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => {
      this.#sockets.delete(upstream)
      client.destroy()
    })
    client.on('close', () => upstream.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  }
}
