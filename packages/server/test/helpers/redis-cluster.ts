import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Cluster, Redis } from 'ioredis'
import { until } from './wait.ts'

/** A throwaway Redis Cluster of this test run's own: three masters, no replicas. */
export interface TestRedisCluster {
  /** The value of REDIS_CLUSTER_NODES that names it. */
  nodes: string
  ports: number[]
  /** A cluster client, for looking at what the service stored. */
  client(): Cluster
  /** Kills one server (by its pid): the cluster loses the slots it served. */
  killNode(index: number): Promise<void>
  /** Kills the servers (by their pids) and removes their directories. */
  stop(): Promise<void>
}

/** Why a cluster cannot be started here, or undefined when redis-server and redis-cli are installed. */
export function redisClusterUnavailable(): string | undefined {
  for (const tool of ['redis-server', 'redis-cli']) {
    const found = spawnSync(tool, ['--version'], { stdio: 'ignore' })
    if (found.error !== undefined || found.status !== 0) return `${tool} is not installed (Debian: apt-get install redis-server)`
  }
  return undefined
}

/** Skips loudly when a cluster cannot be started, except under CI=true, where that is a failure. */
export function redisClusterSkip(): string | false {
  const reason = redisClusterUnavailable()
  if (reason === undefined) return false
  if (process.env.CI === 'true') throw new Error(`the Redis Cluster tests must run under CI=true, but: ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the Redis Cluster tests: ${reason}\n\n`)
  return `Redis Cluster unavailable: ${reason}`
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A port free now whose cluster bus port (port + 10000) is free too: below the ephemeral range so both fit. */
async function clusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000)
    if (!taken.includes(port) && (await portFree(port)) && (await portFree(port + 10_000))) return port
  }
}

async function answers(port: number, check: (redis: Redis) => Promise<boolean>): Promise<boolean> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return await check(redis)
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

/** Starts three `redis-server --cluster-enabled yes` on free ports in a temp directory and joins them with `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-cluster-'))
  const children: ChildProcess[] = []
  const ports: number[] = []
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    process.kill(child.pid!, 'SIGKILL')
    await exited
  }
  const stop = async () => {
    await Promise.all(children.map(kill))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(ports)
      ports.push(port)
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`
      ]
      args.push(
        '--cluster-node-timeout',
        '2000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--loglevel',
        'warning'
      )
      const child = spawn('redis-server', args, { stdio: 'ignore' })
      child.on('error', () => {})
      children.push(child)
    }
    for (const port of ports)
      await until(() => answers(port, async (redis) => (await redis.ping()) === 'PONG'), {
        timeoutMs: 10_000,
        what: `redis-server on ${port}`
      })
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      {
        encoding: 'utf8',
        timeout: 30_000
      }
    )
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`)
    for (const port of ports)
      await until(() => answers(port, async (redis) => /cluster_state:ok/.test(String(await redis.cluster('INFO')))), {
        timeoutMs: 20_000,
        intervalMs: 100,
        what: `the cluster to be ok on ${port}`
      })
  } catch (error) {
    await stop()
    throw error
  }
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    client: () => {
      const cluster = new Cluster(
        ports.map((port) => ({ host: '127.0.0.1', port })),
        { redisOptions: { maxRetriesPerRequest: 1 } }
      )
      cluster.on('error', () => {})
      return cluster
    },
    killNode: (index) => kill(children[index]!),
    stop
  }
}
