import { randomUUID } from 'node:crypto'
import type { TestContext } from 'node:test'
import { Redis } from 'ioredis'
import { defer } from './temp.ts'

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Why Redis cannot be used here, or undefined when it answers. */
export async function redisUnavailable(): Promise<string | undefined> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (error) {
    return `Redis at ${TEST_REDIS_URL} is not reachable (${(error as Error).message}); set TEST_REDIS_URL or start redis-server`
  } finally {
    redis.disconnect()
  }
}

/** A key prefix of this test's own; every key under it is deleted after the test. */
export function redisPrefix(t: TestContext): string {
  const prefix = `animal-store-test:${randomUUID()}:`
  defer(t, async () => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 })
    redis.on('error', () => {})
    try {
      let cursor = '0'
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        cursor = next
        if (keys.length > 0) await redis.del(...keys)
      } while (cursor !== '0')
    } finally {
      redis.disconnect()
    }
  })
  return prefix
}
