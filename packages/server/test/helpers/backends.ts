import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { openStorage } from '../../src/storage/index.ts'
import type { Storage } from '../../src/storage/types.ts'
import { loadConfig } from '../../src/config.ts'
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

/** Every backend the behaviour suites run over. */
export const BACKENDS: Backend[] = [sqliteBackend]

/**
 * The backends a behaviour suite runs over here. One that cannot run is skipped with a loud
 * line naming what is missing, except under CI=true, where that is a failure.
 */
export async function suiteBackends(): Promise<Array<{ backend: Backend, skip: string | false }>> {
  return Promise.all(BACKENDS.map(async (backend) => {
    const reason = await backend.unavailable()
    if (reason === undefined) return { backend, skip: false as const }
    if (process.env.CI === 'true') throw new Error(`the ${backend.name} backend must run under CI=true, but: ${reason}`)
    process.stderr.write(`\n!!! SKIPPING the ${backend.name} backend: ${reason}\n\n`)
    return { backend, skip: `${backend.name} unavailable: ${reason}` }
  }))
}
