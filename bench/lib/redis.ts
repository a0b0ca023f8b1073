import { Redis } from 'ioredis'

async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false
  })
  redis.on('error', () => {})
  await redis.connect()
  try {
    return await work(redis)
  } finally {
    redis.disconnect()
  }
}

/** Why Redis cannot be used at `url`, or undefined when it answers PING. */
export async function redisUnavailable(url: string): Promise<string | undefined> {
  try {
    await withRedis(url, (redis) => redis.ping())
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** Deletes every key under `prefix` (SCAN, bounded), returning how many were deleted. */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (redis) => {
    let cursor = '0'
    let deleted = 0
    for (let i = 0; i < 100_000; i++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) deleted += await redis.del(...keys)
      cursor = next
      if (cursor === '0') break
    }
    return deleted
  })
}
