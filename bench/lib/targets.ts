// The servers the benchmark compares, and how each gets a seeded store of its own.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from './processes.ts'
import { redisUnavailable, deleteRedisPrefix } from './redis.ts'
import { createPgSchema, dropPgSchema, pgTables, postgresUnavailable, seedNaiveSqlite, seedPostgres, seedServiceSqlite, trimPostgres, trimSqlite } from './seed.ts'

export type TargetId = 'ceiling' | 'naive' | 'service-sqlite' | 'service-pg'
export type Role = 'ceiling' | 'baseline' | 'service'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const SERVICE_BIN = join(ROOT, 'packages/server/bin/animal-store.js')
/** The Node flags of the CLI's shebang (`#!/usr/bin/env -S node <flags>`): the service runs as `npm start` and `npx animal-store` run it. */
export const SERVICE_NODE_FLAGS = (/^#!.*\bnode((?: +-[^ ]+)*) *$/.exec(readFileSync(SERVICE_BIN, 'utf8').split('\n')[0]!)?.[1] ?? '').trim().split(/ +/).filter(Boolean)

/** A store seeded for one target at one scale, and the environment that points its server at it. */
export interface Store {
  env: NodeJS.ProcessEnv
  key: string
  /** The seeded ids are 1..maxId. */
  maxId: number
  /** Time spent seeding the pets (ms), schema and key excluded. */
  seedMs: number
  /** Deletes what a write workload created. */
  trim(): Promise<void>
  /** Removes anything the store left outside the run's temp folder (schemas, Redis keys). */
  dispose(): Promise<void>
}

export interface SetupContext {
  /** A fresh folder for this scale, removed at the end of the run. */
  dir: string
  runId: string
  pgUrl: string
  redisUrl: string
  /** SQLite `synchronous` of the naive baseline; undefined keeps better-sqlite3's default (NORMAL under WAL). */
  naiveSynchronous: 'FULL' | 'NORMAL' | undefined
  /** Registers a clean-up that runs when the harness exits, however it exits (Ctrl-C included). */
  defer(cleanup: () => Promise<void>): void
}

export interface Target {
  id: TargetId
  role: Role
  label: string
  /** Script and arguments, run by this Node (24). */
  entry: string[]
  /** Why this target cannot run here, or undefined. */
  unavailable(context: SetupContext): Promise<string | undefined>
  setup(context: SetupContext, pets: number): Promise<Store>
}

/** Thrown when a target turns out not to be runnable (e.g. the service has no PostgreSQL backend yet). */
export class TargetUnavailable extends Error {}

/** `animal-store <args>` as a user runs it, against the store `env` points to. */
async function serviceCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const run = await runCommand(process.execPath, [SERVICE_BIN, ...args], { env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env }, timeoutMs: 120_000, cwd: ROOT })
  if (run.code !== 0) throw new Error(`animal-store ${args.join(' ')} failed (${run.code}): ${run.stderr.trim() || run.stdout.trim()}`)
  return run.stdout
}

/** An enterprise key with limits no benchmark reaches, so the rate limiter runs but never refuses. */
async function createServiceKey(env: NodeJS.ProcessEnv): Promise<string> {
  const out = await serviceCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '1000000000', '--name', 'bench', '--json'], env)
  return (JSON.parse(out) as { key: string }).key
}

const timed = async (work: () => unknown): Promise<number> => {
  const started = performance.now()
  await work()
  return performance.now() - started
}

const ceiling: Target = {
  id: 'ceiling',
  role: 'ceiling',
  label: 'ceiling (raw node:http, constant body)',
  entry: [fileURLToPath(new URL('../ceiling/server.ts', import.meta.url))],
  unavailable: async () => undefined,
  setup: async (_context, pets) => ({ env: {}, key: 'ceiling', maxId: pets, seedMs: 0, trim: async () => {}, dispose: async () => {} })
}

const naive: Target = {
  id: 'naive',
  role: 'baseline',
  label: 'naive (Express 5 + better-sqlite3, WAL)',
  entry: [fileURLToPath(new URL('../baselines/naive-express.ts', import.meta.url))],
  unavailable: async () => undefined,
  async setup({ dir, naiveSynchronous }, pets) {
    const path = join(dir, 'naive.db')
    const key = `naive_${randomBytes(24).toString('hex')}`
    const seedMs = await timed(() => seedNaiveSqlite(path, pets, key))
    const env: NodeJS.ProcessEnv = { NAIVE_DB: path }
    if (naiveSynchronous !== undefined) env.NAIVE_SYNCHRONOUS = naiveSynchronous
    return { env, key, maxId: pets, seedMs, trim: async () => trimSqlite(path, pets), dispose: async () => {} }
  }
}

const serviceSqlite: Target = {
  id: 'service-sqlite',
  role: 'service',
  label: 'service, embedded SQLite',
  entry: [...SERVICE_NODE_FLAGS, SERVICE_BIN, 'serve'],
  unavailable: async () => undefined,
  async setup({ dir }, pets) {
    const path = join(dir, 'service.db')
    const env = { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'warn' }
    await serviceCli(['migrate'], env)
    const seedMs = await timed(() => seedServiceSqlite(path, pets))
    const key = await createServiceKey(env)
    return { env, key, maxId: pets, seedMs, trim: async () => trimSqlite(path, pets), dispose: async () => {} }
  }
}

function withSearchPath(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
}

const servicePg: Target = {
  id: 'service-pg',
  role: 'service',
  label: 'service, PostgreSQL + Redis',
  entry: [...SERVICE_NODE_FLAGS, SERVICE_BIN, 'serve'],
  async unavailable({ pgUrl, redisUrl }) {
    const pg = await postgresUnavailable(pgUrl)
    if (pg !== undefined) return `PostgreSQL at ${pgUrl} is not reachable (${pg})`
    const redis = await redisUnavailable(redisUrl)
    if (redis !== undefined) return `Redis at ${redisUrl} is not reachable (${redis})`
    return undefined
  },
  async setup({ runId, pgUrl, redisUrl, defer }, pets) {
    // An isolated schema (through the connection's search_path) and Redis key prefix per scale.
    const schema = `bench_${runId}_${pets}`
    const redisPrefix = `bench-${runId}-${pets}:`
    const env = { DATABASE_URL: withSearchPath(pgUrl, schema), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix, LOG_LEVEL: 'warn' }
    let disposed = false
    const dispose = async () => {
      if (disposed) return
      disposed = true
      await dropPgSchema(pgUrl, schema)
      await deleteRedisPrefix(redisUrl, redisPrefix)
    }
    defer(dispose)
    await createPgSchema(pgUrl, schema)
    try {
      try {
        await serviceCli(['migrate'], env)
      } catch (error) {
        throw new TargetUnavailable(`the service cannot migrate a PostgreSQL store yet: ${(error as Error).message}`, { cause: error })
      }
      const tables = await pgTables(pgUrl, schema)
      if (!tables.includes('pets')) throw new TargetUnavailable(`the service did not create its tables in the schema named by search_path (${schema}): refusing to seed elsewhere`)
      const seedMs = await timed(() => seedPostgres(pgUrl, schema, pets))
      const key = await createServiceKey(env)
      return { env, key, maxId: pets, seedMs, trim: () => trimPostgres(pgUrl, schema, pets), dispose }
    } catch (error) {
      await dispose().catch(() => {})
      throw error
    }
  }
}

export const TARGETS: Target[] = [ceiling, naive, serviceSqlite, servicePg]
