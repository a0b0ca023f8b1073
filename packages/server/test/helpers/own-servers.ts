import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import pg from 'pg'
import { Redis } from 'ioredis'
import { defer, freePort, tempDir } from './temp.ts'
import { until } from './wait.ts'

// PostgreSQL and Redis servers of a test's own, on free ports, that the test may SIGKILL and
// restart: the shared services are never touched. Each runs in its own process group; a kill
// takes the server, every child it forked, and nothing else.

function which(command: string): string | undefined {
  try {
    return execFileSync('which', [command], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

/** Why the own servers cannot run here (a tool is missing), or undefined. */
export function ownServersUnavailable(): string | undefined {
  if (which('initdb') === undefined) return 'initdb (PostgreSQL server binaries) is not on PATH'
  if (which('redis-server') === undefined) return 'redis-server is not on PATH'
  return undefined
}

/** initdb and postgres refuse to run as root: as root they run as the `postgres` user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

abstract class OwnServer {
  readonly port: number
  #child: ChildProcess | undefined
  #output = ''

  protected constructor(port: number) {
    this.port = port
  }

  protected abstract command(): { file: string; args: string[]; user?: { uid: number; gid: number } }
  protected abstract answers(): Promise<boolean>

  /** Starts the server (again, on the same port and data) and resolves once it answers. */
  async start(): Promise<void> {
    const { file, args, user } = this.command()
    const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...user })
    child.stdout.on('data', (chunk) => (this.#output += chunk))
    child.stderr.on('data', (chunk) => (this.#output += chunk))
    this.#child = child
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`${file} exited (${child.exitCode}):\n${this.#output}`)
        return this.answers()
      },
      { timeoutMs: 15_000, intervalMs: 50, what: `${file} on port ${this.port} to answer` }
    )
  }

  /** SIGKILLs the server and every process of its group; resolves once the server has exited. */
  async kill(): Promise<void> {
    const child = this.#child
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const pid = child.pid!
    // PostgreSQL puts each backend in a session of its own: stop the server from forking, then
    // kill its children by pid and the group, all at once, as a crash of the machine's server would.
    process.kill(pid, 'SIGSTOP')
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
    for (const descendant of children) process.kill(descendant, 'SIGKILL')
    process.kill(-pid, 'SIGKILL')
    await exited
    this.#child = undefined
  }
}

/** A PostgreSQL cluster in a temporary directory (trust auth, user postgres, database postgres). */
export class OwnPostgres extends OwnServer {
  readonly #bin: string
  readonly #data: string
  readonly #user = serverUser()

  private constructor(port: number, bin: string, data: string) {
    super(port)
    this.#bin = bin
    this.#data = data
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`
  }

  static async start(t: TestContext): Promise<OwnPostgres> {
    // The server binaries sit beside initdb's real file (PATH often holds only links to them).
    const bin = dirname(realpathSync(which('initdb')!))
    const dir = tempDir(t, 'animal-store-pg-')
    const data = join(dir, 'data')
    const user = serverUser()
    if (user !== undefined) chownSync(dir, user.uid, user.gid)
    execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], {
      stdio: 'ignore',
      ...user
    })
    const server = new OwnPostgres(await freePort(), bin, data)
    defer(t, () => server.kill())
    await server.start()
    return server
  }

  protected command() {
    // fsync off: the test kills the process, never the machine, so the OS still holds every commit.
    const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${this.#data}`, 'fsync=off', 'max_connections=50']
    const args = ['-D', this.#data, '-p', String(this.port), ...settings.flatMap((setting) => ['-c', setting])]
    return { file: join(this.#bin, 'postgres'), args, user: this.#user }
  }

  protected async answers(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1000 })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('SELECT 1')
      return true
    } catch {
      return false
    } finally {
      await client.end().catch(() => {})
    }
  }
}

/** A redis-server without persistence. */
export class OwnRedis extends OwnServer {
  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  static async start(t: TestContext): Promise<OwnRedis> {
    const server = new OwnRedis(await freePort())
    defer(t, () => server.kill())
    await server.start()
    return server
  }

  protected command() {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
    return { file: which('redis-server')!, args }
  }

  protected async answers(): Promise<boolean> {
    const redis = new Redis(this.url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null })
    redis.on('error', () => {})
    try {
      await redis.connect()
      return (await redis.ping()) === 'PONG'
    } catch {
      return false
    } finally {
      redis.disconnect()
    }
  }
}
