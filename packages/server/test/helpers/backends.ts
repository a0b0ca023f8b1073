import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { openStorage } from '../../src/storage/index.ts'
import type { Storage } from '../../src/storage/types.ts'
import { loadConfig } from '../../src/config.ts'
import { createSchema, postgresUnavailable } from './postgres.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from './redis.ts'
import { tempDir } from './temp.ts'

export interface Backend {
  name: string
  /** Why this backend cannot run here, or undefined when it can. */
  unavailable(): Promise<string | undefined>
  /** A fresh, migrated, isolated store and the environment that points at it; removed after the test. */
  create(t: TestContext): Promise<{ storage: Storage, env: Record<string, string> }>
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  unavailable: async () => undefined,
  async create(t) {
    const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` }
    const storage = await openStorage(loadConfig(env).database)
    await storage.migrate()
    t.after(() => storage.close())
    return { storage, env }
  }
}

/** The scale-out configuration: PostgreSQL (a schema of the test's own) and Redis (a key prefix of its own). */
export const postgresBackend: Backend = {
  name: 'postgres+redis',
  unavailable: async () => (await postgresUnavailable()) ?? (await redisUnavailable()),
  async create(t) {
    const schema = await createSchema()
    const env = { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
    const storage = await openStorage(loadConfig(env).database)
    // One hook, in this order: the pool must let go before its schema goes.
    t.after(async () => {
      await storage.close()
      await schema.drop()
    })
    await storage.migrate()
    return { storage, env }
  }
}

/** Every backend the behaviour suites run over. */
export const BACKENDS: Backend[] = [sqliteBackend, postgresBackend]

/**
 * Whether a backend can run here: false when it can; otherwise it is skipped with a loud line
 * naming what is missing, except under CI=true, where that is a failure.
 */
export async function backendSkip(backend: Backend): Promise<string | false> {
  const reason = await backend.unavailable()
  if (reason === undefined) return false
  if (process.env.CI === 'true') throw new Error(`the ${backend.name} backend must run under CI=true, but: ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the ${backend.name} backend: ${reason}\n\n`)
  return `${backend.name} unavailable: ${reason}`
}

/** The backends a behaviour suite runs over here, each with its skip reason (see backendSkip). */
export async function suiteBackends(): Promise<Array<{ backend: Backend, skip: string | false }>> {
  return Promise.all(BACKENDS.map(async (backend) => ({ backend, skip: await backendSkip(backend) })))
}
