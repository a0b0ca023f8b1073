import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { OperatorRole } from '@animal-store/contract'
import { buildAdminApp } from '../../src/admin-app.ts'
import { buildApp } from '../../src/app.ts'
import { ManualClock } from '../../src/base/clock.ts'
import { compose, type ComposeOptions } from '../../src/compose.ts'
import type { Services } from '../../src/services.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { CreateKeyInput } from '../../src/domain/keys/changes.ts'
import type { Storage } from '../../src/storage/types.ts'
import { BACKENDS, type Backend } from './backends.ts'
import { recordIssuedKey, testLogger } from './logs.ts'
import { defer, freePort } from './temp.ts'

export interface TestApp {
  app: FastifyInstance
  /** `http://127.0.0.1:<port>`: tests speak real HTTP to it. */
  origin: string
  /** The `{base_url}`: origin + `/v1`. */
  base: string
  config: Config
  /** The environment that points at this app's store. */
  backendEnv: Record<string, string>
  services: Services
  storage: Storage
  clock: ManualClock
  /** Creates an API key (for `customerId`, else on the free plan unless told) and returns its secret. */
  key(input?: Partial<CreateKeyInput>): Promise<string>
  keyWithId(input?: Partial<CreateKeyInput>): Promise<{ key: string; id: string }>
  /** fetch against the origin with the key as bearer (unless headers say otherwise). */
  fetch(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>
  /** The operator listener's origin (`http://127.0.0.1:<port>`), when the app was started with `admin`. */
  adminOrigin: string
  /** Creates an operator of the role and returns their token. */
  operator(role: OperatorRole, name?: string): Promise<string>
  /** fetch against the operator listener with the token as bearer (none when null or absent). */
  admin(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>
  /** Stops serving and closes the services, as SIGTERM does (also done when the test ends). */
  close(): Promise<void>
}

export interface TestAppOptions {
  backend?: Backend
  env?: Record<string, string>
  /** A fixed start time; the default is a fixed moment well before the sunset. */
  now?: Date
  /** Parts to hand the composition root instead of those the config names. */
  compose?: Omit<ComposeOptions, 'clock' | 'logger'>
  /** A second instance: same store (and environment) as this app, its own process state. */
  shareStorageWith?: TestApp
  /** Also start the operator listener (on a free port), as `serve` does; `consoleDist` replaces the console's built files. */
  admin?: boolean | { consoleDist: string }
}

/**
 * Builds the service exactly as `serve` does (loadConfig, compose, buildApp), on a fresh store
 * of the chosen backend, listening on a free port; closes it all after the test.
 */
export async function startApp(t: TestContext, options: TestAppOptions = {}): Promise<TestApp> {
  const backend = options.backend ?? BACKENDS[0]!
  const backendEnv = options.shareStorageWith?.backendEnv ?? (await backend.environment(t))
  const clock = new ManualClock(options.now ?? new Date('2026-06-15T12:00:10Z'))
  const adminPort = options.admin === undefined || options.admin === false ? 'off' : String(await freePort())
  const env = { PORT: String(await freePort()), ADMIN_PORT: adminPort, LOG_LEVEL: 'silent', ...backendEnv, ...options.env }
  const config = loadConfig(env)
  const services = await compose(config, { ...options.compose, clock, logger: testLogger() })
  defer(t, () => services.close())
  const app = await buildApp(services)
  const consoleDist = typeof options.admin === 'object' ? options.admin.consoleDist : undefined
  const adminApp = config.admin === undefined ? undefined : await buildAdminApp(services, { consoleDist })
  let closed: Promise<void> | undefined
  const close = () => (closed ??= Promise.all([app.close(), adminApp?.close()]).then(() => services.close()))
  defer(t, close)
  await app.listen({ port: config.port, host: config.host })
  await adminApp?.listen({ port: config.admin!.port, host: config.admin!.host })
  const adminOrigin = `http://127.0.0.1:${config.admin?.port ?? 0}`
  const origin = `http://127.0.0.1:${config.port}`
  const keyWithId = async (input: Partial<CreateKeyInput> = {}) => {
    // A key of a customer's (`customerId`) runs under its plan; any other gets a customer of its own, on Free unless told.
    const fields = input.customerId === undefined ? { plan: 'free', ...input } : input
    const created = await services.keys.create(fields, { type: 'cli', id: 'test', name: 'test' })
    recordIssuedKey(created.key)
    return { key: created.key, id: created.view.id }
  }
  // One default key per app, even when the first requests are concurrent.
  let defaultKey: Promise<string> | undefined
  return {
    app,
    origin,
    base: config.publicBaseUrl,
    config,
    backendEnv,
    services,
    storage: services.storage,
    clock,
    keyWithId,
    key: async (input) => (await keyWithId(input)).key,
    adminOrigin,
    operator: async (role, name = `test ${role}`) => {
      const { token } = await services.operators.create({ role, name }, { type: 'cli', id: 'test', name: 'test' })
      recordIssuedKey(token)
      return token
    },
    admin: async (path, init = {}) => {
      const { token, ...rest } = init
      const headers = new Headers(rest.headers)
      if (token !== undefined && token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`)
      return fetch(adminOrigin + path, { ...rest, headers })
    },
    fetch: async (path, init = {}) => {
      const { key, ...rest } = init
      const headers = new Headers(rest.headers)
      if (key !== null && !headers.has('authorization')) {
        if (key === undefined) defaultKey ??= keyWithId({ plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000 }).then((k) => k.key)
        headers.set('authorization', `Bearer ${key ?? (await defaultKey)}`)
      }
      return fetch(origin + path, { ...rest, headers })
    },
    close
  }
}

/** POSTs a JSON body (a string is sent as is). */
export function postJson(t: TestApp, path: string, body: unknown, init: RequestInit & { key?: string | null } = {}): Promise<Response> {
  return t.fetch(path, {
    ...init,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
}
