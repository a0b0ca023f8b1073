import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { compose } from '../../src/compose.ts'
import { loadConfig } from '../../src/config.ts'
import type { Storage } from '../../src/storage/types.ts'
import { createSchema, postgresUnavailable } from './postgres.ts'
import { redisPrefix, redisUnavailable, TEST_REDIS_URL } from './redis.ts'
import { defer, tempDir } from './temp.ts'

export interface Backend {
  name: string
  /** Why this backend cannot run here, or undefined when it can. */
  unavailable(): Promise<string | undefined>
  /** The environment of a fresh, empty, isolated store; what it made is removed after the test. */
  environment(t: TestContext): Promise<Record<string, string>>
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  unavailable: async () => undefined,
  environment: async (t) => ({ DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` })
}

/** The scale-out configuration: PostgreSQL (a schema of the test's own) and Redis (a key prefix of its own). */
export const postgresBackend: Backend = {
  name: 'postgres+redis',
  unavailable: async () => (await postgresUnavailable()) ?? (await redisUnavailable()),
  async environment(t) {
    const schema = await createSchema()
    defer(t, () => schema.drop())
    return { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t) }
  }
}

/** Every backend the behaviour suites run over. */
export const BACKENDS: Backend[] = [sqliteBackend, postgresBackend]

/** The storage `env` points at, opened as the service opens it (not migrated); closed after the test. */
export async function openStorage(t: TestContext, env: Record<string, string>): Promise<Storage> {
  const services = await compose(loadConfig(env), { role: 'cli', migrate: false })
  defer(t, () => services.close())
  return services.storage
}

/** A fresh, migrated store of `backend`; closed and removed after the test. */
export async function openStore(t: TestContext, backend: Backend): Promise<{ storage: Storage; env: Record<string, string> }> {
  const env = await backend.environment(t)
  const storage = await openStorage(t, env)
  await storage.migrate()
  return { storage, env }
}

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
export async function suiteBackends(): Promise<Array<{ backend: Backend; skip: string | false }>> {
  return Promise.all(BACKENDS.map(async (backend) => ({ backend, skip: await backendSkip(backend) })))
}
