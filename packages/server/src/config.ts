import { resolve } from 'node:path'
import { tracingConfig, type TracingConfig } from './base/tracing.ts'
import { parseProxyList, type TrustedProxies } from './base/ip-address.ts'
import { redisClusterNodes, redisUrl, type RedisNode } from './base/redis-config.ts'

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; pool: PostgresPoolConfig }

export interface PostgresPoolConfig {
  /** Connections per process (DATABASE_POOL_SIZE); several instances multiply it. */
  size: number
  /** Server-side limit on one statement, lock waits included (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number
  /** Limit on opening a connection or waiting for a free one (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number
}

/** The operator listener: the operator API and its console, on a port of its own. */
interface AdminListenerConfig {
  host: string
  port: number
  /** ADMIN_PORT was set: a port that cannot be bound stops start-up (the default one, taken, is only skipped). */
  portChosen: boolean
}

export interface Config {
  port: number
  host: string
  /** ADMIN_HOST and ADMIN_PORT; undefined with ADMIN_PORT=off. */
  admin: AdminListenerConfig | undefined
  database: DatabaseConfig
  redisUrl: string | undefined
  /** REDIS_CLUSTER_NODES: the seed nodes of a Redis Cluster that holds the counters instead of REDIS_URL's Redis. */
  redisClusterNodes: RedisNode[] | undefined
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string
  /** The `{base_url}` of SPEC.md, without a trailing slash; ends in `/v1`. */
  publicBaseUrl: string
  stagingBaseUrl: string | undefined
  /** The proxies whose `X-Forwarded-For` entries name the client (TRUST_PROXY); undefined: none. */
  trustProxy: TrustedProxies | undefined
  /** IPv6 clients are limited per prefix of this many bits (RATE_LIMIT_IPV6_PREFIX). */
  ipv6Prefix: number
  /** The most client addresses whose counters are kept (RATE_LIMIT_MAX_ADDRESSES). */
  maxAddresses: number
  logLevel: string
  banSeconds: number
  /** Rendered list pages kept in memory (PAGE_CACHE_ENTRIES; 0 keeps none). */
  pageCacheEntries: number
  /** Slow-client protection: headers, then the whole request, must arrive within these. */
  timeouts: { headersMs: number; requestMs: number; keepAliveMs: number }
  /** OpenTelemetry tracing from the standard OTEL_* variables; undefined (off) without an OTLP endpoint. */
  tracing: TracingConfig | undefined
}

export class ConfigError extends Error {}

const configError = (message: string) => new ConfigError(message)

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

type Env = Record<string, string | undefined>

function integerOr(raw: string, name: string, min: number, max: number, alternative = ''): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} is invalid: expected an integer from ${min} to ${max}${alternative && ` ${alternative}`}`
    )
  }
  return Number(raw)
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  return raw === undefined || raw === '' ? fallback : integerOr(raw, name, min, max)
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a valid URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name}=${JSON.stringify(raw)} must be an http:// or https:// URL`)
  return raw.replace(/\/+$/, '')
}

function postgresPool(env: Env): PostgresPoolConfig {
  return {
    size: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 1, 3_600_000),
    connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 3000, 1, 600_000)
  }
}

function database(env: Env, cwd: string): DatabaseConfig {
  // Validated whatever the backend, so a typo is caught before the switch to PostgreSQL.
  const pool = postgresPool(env)
  const raw = env.DATABASE_URL
  const value = raw === undefined || raw === '' ? 'sqlite:./data/animal-store.db' : raw
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    if (path === '') throw new ConfigError('DATABASE_URL=sqlite: needs a file path, e.g. sqlite:./data/animal-store.db')
    return { kind: 'sqlite', path: resolve(cwd, path) }
  }
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    try {
      new URL(value)
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL')
    }
    return { kind: 'postgres', url: value, pool }
  }
  throw new ConfigError(
    `DATABASE_URL has an unknown scheme: expected sqlite:<path> or postgres://... (got ${JSON.stringify(value.split(':')[0])})`
  )
}

function adminListener(env: Env, port: number): AdminListenerConfig | undefined {
  const raw = env.ADMIN_PORT
  if (raw === 'off') return undefined
  const host = env.ADMIN_HOST === undefined || env.ADMIN_HOST === '' ? '127.0.0.1' : env.ADMIN_HOST
  const portChosen = raw !== undefined && raw !== ''
  const adminPort = portChosen ? integerOr(raw, 'ADMIN_PORT', 0, 65535, 'or off') : 8081
  if (portChosen && adminPort === port && port !== 0)
    throw new ConfigError(`ADMIN_PORT and PORT are both ${port}: the operator listener needs a port of its own`)
  return { host, port: adminPort, portChosen }
}

function trustProxy(raw: string | undefined): TrustedProxies | undefined {
  if (raw === undefined || raw.trim() === '' || raw.trim() === '0') return undefined
  if (/^[0-9]+$/.test(raw.trim()) && Number(raw) <= 100) return { hops: Number(raw) }
  try {
    return { list: parseProxyList(raw) }
  } catch (error) {
    throw new ConfigError(
      `TRUST_PROXY=${JSON.stringify(raw)} is invalid (${JSON.stringify((error as Error).message)}): ` +
        'expected a hop count from 0 to 100 or a comma-separated list of proxy addresses/CIDRs, e.g. 1 or 10.0.0.0/8,::1'
    )
  }
}

/** Environment to a typed, validated Config; the one place configuration is read. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535)
  const host = env.HOST === undefined || env.HOST === '' ? '127.0.0.1' : env.HOST
  const logLevel = env.LOG_LEVEL === undefined || env.LOG_LEVEL === '' ? 'info' : env.LOG_LEVEL
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL=${JSON.stringify(logLevel)} is invalid: expected one of ${LOG_LEVELS.join(', ')}`)
  const urlHost = host.includes(':') ? `[${host}]` : host
  const redis = redisUrl(env.REDIS_URL, configError)
  return {
    port,
    host,
    admin: adminListener(env, port),
    database: database(env, cwd),
    redisUrl: redis,
    redisClusterNodes: redisClusterNodes(env.REDIS_CLUSTER_NODES, redis, configError),
    redisKeyPrefix: env.REDIS_KEY_PREFIX === undefined || env.REDIS_KEY_PREFIX === '' ? 'animal-store:' : env.REDIS_KEY_PREFIX,
    publicBaseUrl: httpUrl(env, 'PUBLIC_BASE_URL') ?? `http://${urlHost}:${port}/v1`,
    stagingBaseUrl: httpUrl(env, 'STAGING_BASE_URL'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    ipv6Prefix: integer(env, 'RATE_LIMIT_IPV6_PREFIX', 64, 16, 128),
    maxAddresses: integer(env, 'RATE_LIMIT_MAX_ADDRESSES', 100_000, 1, 100_000_000),
    logLevel,
    banSeconds: integer(env, 'RATE_LIMIT_BAN_SECONDS', 900, 1, 86_400 * 30),
    pageCacheEntries: integer(env, 'PAGE_CACHE_ENTRIES', 256, 0, 100_000),
    timeouts: {
      headersMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      requestMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
      keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000)
    },
    tracing: tracingConfig(env, configError)
  }
}

/** Describes where the config points, with any password masked, for the start-up log. */
export function describeDatabase(db: DatabaseConfig): string {
  if (db.kind === 'sqlite') return `sqlite:${db.path}`
  const url = new URL(db.url)
  if (url.password !== '') url.password = '***'
  return url.toString()
}
