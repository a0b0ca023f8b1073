import { Cluster, Redis, type RedisOptions as ConnectionOptions } from 'ioredis'

export interface RedisOptions {
  /** `url` for one Redis (REDIS_URL), `clusterNodes` for a Redis Cluster (REDIS_CLUSTER_NODES). */
  url?: string
  clusterNodes?: Array<{ host: string; port: number }>
  keyPrefix: string
  /** A command not answered in this time fails, so a stalled Redis cannot stall requests. */
  commandTimeoutMs?: number
}

/** One Redis, or a Redis Cluster: the commands the counter store and the change marker send work on both. */
export type ScriptedRedis = (Redis | Cluster) & {
  /** `numberOfKeys`, the keys, then the values (see CONSUME_MANY). */
  animalStoreConsumeMany(numberOfKeys: number, ...keysThenValues: string[]): Promise<string>
}

const retryDelay = (attempt: number) => Math.min(attempt * 200, 2000)

/** A client of the Redis (`url`) or the Redis Cluster (`clusterNodes`) the options name, connecting at once. */
export function connectRedis(options: RedisOptions): ScriptedRedis {
  const connection: ConnectionOptions = {
    // Fail fast while disconnected (the fallback store answers), reconnect forever.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2000
  }
  if (options.clusterNodes === undefined)
    return new Redis(options.url ?? '', { ...connection, lazyConnect: false, retryStrategy: retryDelay }) as ScriptedRedis
  return new Cluster(options.clusterNodes, {
    enableOfflineQueue: false,
    redisOptions: connection,
    clusterRetryStrategy: retryDelay,
    // A slot that moved is followed; a slot whose node is down fails at once (the fallback answers).
    retryDelayOnClusterDown: 0,
    retryDelayOnTryAgain: 0
  }) as ScriptedRedis
}

/** `ok` while the cluster serves every slot, else why not: degraded, as an unreachable Redis is (the fallback answers). */
export async function clusterHealth(redis: ScriptedRedis): Promise<string> {
  try {
    const info = String(await (redis as Cluster).cluster('INFO'))
    const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown'
    return state === 'ok' ? 'ok' : `degraded: cluster_state ${state}, requests on its failed slots use per-instance limits`
  } catch (error) {
    return `degraded: ${(error as Error).message}`
  }
}
