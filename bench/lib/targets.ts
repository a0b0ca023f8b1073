// The servers the benchmark compares, and how each gets a seeded store of its own.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from './processes.ts'
import { redisUnavailable, deleteRedisPrefix } from './redis.ts'
import {
  createPgSchema,
  dropPgSchema,
  pgTables,
  postgresUnavailable,
  seedNaiveSqlite,
  seedPostgres,
  seedServiceSqlite,
  trimPostgres,
  trimSqlite
} from './seed.ts'

type ServiceId = 'service-sqlite' | 'service-pg'
/** `<service>@<short commit>`: the same service target at the `--baseline-rev` revision. */
export type TargetId = 'ceiling' | 'naive' | ServiceId | `${ServiceId}@${string}`
export type Role = 'ceiling' | 'baseline' | 'service'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** A checkout of the repository whose service a target runs: this one, or a worktree at another revision. */
export interface Checkout {
  /** The repository root; the service's servers and CLI run with it as their working directory. */
  root: string
  /** Its CLI, `packages/server/bin/animal-store.js`. */
  bin: string
  /**
   * The Node flags of the CLI's shebang (`#!/usr/bin/env -S node <flags>`): the service runs
   * as `npm start` and `npx animal-store` run it.
   */
  nodeFlags: string[]
}

export const SERVICE_BIN_PATH = 'packages/server/bin/animal-store.js'

/** The checkout whose repository root is `root` (its CLI must exist). */
export function checkoutAt(root: string): Checkout {
  const bin = join(root, SERVICE_BIN_PATH)
  const shebang = readFileSync(bin, 'utf8').split('\n')[0]!
  const nodeFlags = (/^#!.*\bnode((?: +-[^ ]+)*) *$/.exec(shebang)?.[1] ?? '').trim().split(/ +/).filter(Boolean)
  return { root, bin, nodeFlags }
}

/** This checkout: the code the harness itself belongs to. */
export const CURRENT = checkoutAt(ROOT)

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
  defer: (cleanup: () => Promise<void>) => void
}

export interface Target {
  id: TargetId
  role: Role
  label: string
  /** Script and arguments, run by this Node (24). */
  entry: string[]
  /** The working directory of its servers. */
  cwd: string
  /** For a target at the baseline revision: the target of this checkout it is compared with. */
  baselineOf?: TargetId
  /** Whether a failure to set up skips the target (with a line saying why) rather than failing the run. */
  optional: boolean
  /** Why this target cannot run here, or undefined. */
  unavailable(context: SetupContext): Promise<string | undefined>
  setup(context: SetupContext, pets: number): Promise<Store>
}

/** Thrown when a target turns out not to be runnable (e.g. the service has no PostgreSQL backend yet). */
export class TargetUnavailable extends Error {}

/** `animal-store <args>` as a user runs it, from `checkout`, against the store `env` points to. */
async function serviceCli(checkout: Checkout, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const run = await runCommand(process.execPath, [checkout.bin, ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    timeoutMs: 120_000,
    cwd: checkout.root
  })
  if (run.code !== 0) throw new Error(`animal-store ${args.join(' ')} failed (${run.code}): ${run.stderr.trim() || run.stdout.trim()}`)
  return run.stdout
}

/** An enterprise key with limits no benchmark reaches, so the rate limiter runs but never refuses. */
async function createServiceKey(checkout: Checkout, env: NodeJS.ProcessEnv): Promise<string> {
  const out = await serviceCli(
    checkout,
    ['keys', 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '1000000000', '--name', 'bench', '--json'],
    env
  )
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
  cwd: ROOT,
  optional: false,
  unavailable: async () => undefined,
  setup: async (_context, pets) => ({ env: {}, key: 'ceiling', maxId: pets, seedMs: 0, trim: async () => {}, dispose: async () => {} })
}

const naive: Target = {
  id: 'naive',
  role: 'baseline',
  label: 'naive (Express 5 + better-sqlite3, WAL)',
  entry: [fileURLToPath(new URL('../baselines/naive-express.ts', import.meta.url))],
  cwd: ROOT,
  optional: false,
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

/** How a service target is named, and which target of this checkout it is the baseline-revision copy of. */
interface ServiceNaming {
  id: TargetId
  label: string
  baselineOf?: TargetId
  /** Distinguishes its PostgreSQL schema and Redis prefix from another checkout's in the same run (a short commit). */
  storeTag?: string
}

/** The service on an embedded SQLite file, run from `checkout`'s CLI. */
function serviceSqliteTarget(checkout: Checkout, naming: ServiceNaming): Target {
  return {
    id: naming.id,
    role: 'service',
    label: naming.label,
    entry: [...checkout.nodeFlags, checkout.bin, 'serve'],
    cwd: checkout.root,
    baselineOf: naming.baselineOf,
    optional: false,
    unavailable: async () => undefined,
    async setup({ dir }, pets) {
      const path = join(dir, naming.storeTag === undefined ? 'service.db' : `service-${naming.storeTag}.db`)
      const env = { DATABASE_URL: `sqlite:${path}` }
      await serviceCli(checkout, ['migrate'], env)
      const seedMs = await timed(() => seedServiceSqlite(path, pets))
      const key = await createServiceKey(checkout, env)
      return { env, key, maxId: pets, seedMs, trim: async () => trimSqlite(path, pets), dispose: async () => {} }
    }
  }
}

function withSearchPath(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
}

/** The service on PostgreSQL + Redis, run from `checkout`'s CLI; skipped when either is unreachable. */
function servicePgTarget(checkout: Checkout, naming: ServiceNaming): Target {
  return {
    id: naming.id,
    role: 'service',
    label: naming.label,
    entry: [...checkout.nodeFlags, checkout.bin, 'serve'],
    cwd: checkout.root,
    baselineOf: naming.baselineOf,
    // PostgreSQL is optional here: a store that cannot be set up skips the target.
    optional: true,
    async unavailable({ pgUrl, redisUrl }) {
      const pg = await postgresUnavailable(pgUrl)
      if (pg !== undefined) return `PostgreSQL at ${pgUrl} is not reachable (${pg})`
      const redis = await redisUnavailable(redisUrl)
      if (redis !== undefined) return `Redis at ${redisUrl} is not reachable (${redis})`
      return undefined
    },
    async setup({ runId, pgUrl, redisUrl, defer }, pets) {
      // An isolated schema (through the connection's search_path) and Redis key prefix per target and scale.
      const tag = naming.storeTag
      const schema = `bench_${runId}${tag === undefined ? '' : `_${tag}`}_${pets}`
      const redisPrefix = `bench-${runId}${tag === undefined ? '' : `-${tag}`}-${pets}:`
      const env = { DATABASE_URL: withSearchPath(pgUrl, schema), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix }
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
          await serviceCli(checkout, ['migrate'], env)
        } catch (error) {
          throw new TargetUnavailable(`the service cannot migrate a PostgreSQL store yet: ${(error as Error).message}`, { cause: error })
        }
        const tables = await pgTables(pgUrl, schema)
        if (!tables.includes('pets'))
          throw new TargetUnavailable(
            `the service did not create its tables in the schema named by search_path (${schema}): refusing to seed elsewhere`
          )
        const seedMs = await timed(() => seedPostgres(pgUrl, schema, pets))
        const key = await createServiceKey(checkout, env)
        return { env, key, maxId: pets, seedMs, trim: () => trimPostgres(pgUrl, schema, pets), dispose }
      } catch (error) {
        await dispose().catch(() => {})
        throw error
      }
    }
  }
}

const SERVICES = [
  { id: 'service-sqlite', label: 'service, embedded SQLite', make: serviceSqliteTarget },
  { id: 'service-pg', label: 'service, PostgreSQL + Redis', make: servicePgTarget }
] as const

export const TARGETS: Target[] = [ceiling, naive, ...SERVICES.map((s) => s.make(CURRENT, { id: s.id, label: s.label }))]

/**
 * The service targets of `checkout`, a worktree at another revision (`short`: its short commit),
 * one for each service target of this checkout among `ids`: `service-sqlite@<short>` and so on.
 */
export function baselineTargets(checkout: Checkout, short: string, ids: readonly TargetId[]): Target[] {
  return SERVICES.filter((s) => ids.includes(s.id)).map((s) =>
    s.make(checkout, { id: `${s.id}@${short}`, label: `${s.label}, at ${short}`, baselineOf: s.id, storeTag: short })
  )
}
