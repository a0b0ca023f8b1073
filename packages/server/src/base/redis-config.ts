/** One seed node of a Redis Cluster. */
export interface RedisNode {
  host: string
  port: number
}

/** REDIS_URL: a redis:// or rediss:// URL, or undefined when unset. */
export function redisUrl(raw: string | undefined, configError: (message: string) => Error): string | undefined {
  if (raw === undefined || raw === '') return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw configError('REDIS_URL is not a valid URL')
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw configError('REDIS_URL must be a redis:// or rediss:// URL')
  return raw
}

/** REDIS_CLUSTER_NODES: `host:port,host:port,...` (an IPv6 host in brackets); both it and REDIS_URL set is a mistake. */
export function redisClusterNodes(
  raw: string | undefined,
  url: string | undefined,
  configError: (message: string) => Error
): RedisNode[] | undefined {
  if (raw === undefined || raw === '') return undefined
  if (url !== undefined)
    throw configError('REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a cluster')
  return raw.split(',').map((entry) => {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):([0-9]{1,5})$/.exec(entry.trim())
    if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535)
      throw configError(`REDIS_CLUSTER_NODES must be host:port,host:port,... (got ${JSON.stringify(entry)})`)
    return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) }
  })
}
