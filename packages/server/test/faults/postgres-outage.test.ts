import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, test, type TestContext } from 'node:test'
import pg from 'pg'
import { generateSecret } from '../../src/domain/keys/secret.ts'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { backendSkip, openStorage, postgresBackend, type Backend } from '../helpers/backends.ts'
import { adminQuery, createSchema, TEST_DATABASE_URL, terminateConnections, type TestSchema } from '../helpers/postgres.ts'
import { TcpProxy } from '../helpers/tcp-proxy.ts'
import { LOG_DIR } from '../helpers/logs.ts'
import { defer, freePort } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

const skip = await backendSkip(postgresBackend)

/** A migrated schema of the test's own, dropped after it. */
async function migratedSchema(t: TestContext): Promise<TestSchema> {
  const schema = await createSchema()
  defer(t, () => schema.drop())
  await (await openStorage(t, { DATABASE_URL: schema.url })).migrate()
  return schema
}

/** The app as `serve` builds it, on a DATABASE_URL of the test's choosing (reachable or not; migrated by the test). */
function appOn(t: TestContext, url: string, env: Record<string, string> = {}): Promise<TestApp> {
  const backend: Backend = {
    name: 'postgres (test-made url)',
    unavailable: async () => undefined,
    environment: async () => ({ DATABASE_URL: url, ...env })
  }
  return startApp(t, { backend, compose: { migrate: false } })
}

/** The same URL, through another host:port. */
function via(url: string, port: number): string {
  const parsed = new URL(url)
  parsed.host = `127.0.0.1:${port}`
  return parsed.toString()
}

async function assertUnavailable(response: Response): Promise<void> {
  const retryAfter = response.headers.get('retry-after')
  await assertError(response, 'unavailable')
  assert.match(retryAfter ?? '', /^[1-9]\d*$/, 'Retry-After in whole seconds')
}

async function assertNotReady(app: TestApp): Promise<void> {
  const response = await app.fetch('/readyz', { key: null })
  assert.equal(response.status, 503)
  const body = (await response.json()) as { code: string; status: number; checks: Record<string, string> }
  assert.equal(body.code, 'unavailable')
  assert.equal(body.status, 503)
  assert.match(body.checks.database ?? '', /^unavailable/)
  assert.equal((await app.fetch('/healthz', { key: null })).status, 200, 'the process itself is alive')
}

/** Retries until the app answers 200 again, and fails unless it does within 5 s; that answer. */
async function eventually200(app: TestApp, path: string): Promise<Response> {
  let answer: Response | undefined
  await until(
    async () => {
      const response = await app.fetch(path)
      if (response.status === 200) answer = response
      else await response.arrayBuffer()
      return answer !== undefined
    },
    { timeoutMs: 5000, intervalMs: 100, what: `GET ${path} to answer 200 again` }
  )
  return answer!
}

/** Holds an exclusive lock on the schema's pets table until released: every query on it waits. */
async function lockPets(schema: TestSchema): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  client.on('error', () => {})
  await client.connect()
  await client.query(`BEGIN; LOCK TABLE ${schema.name}.pets IN ACCESS EXCLUSIVE MODE`)
  return async () => {
    await client.query('ROLLBACK').catch(() => {})
    await client.end()
  }
}

async function waitForLockWaiter(schema: TestSchema): Promise<void> {
  const sql = "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'"
  await until(async () => (await adminQuery(sql, [schema.name])).length > 0, { timeoutMs: 5000, what: 'the request to reach the lock' })
}

/** Stalls the proxy, then waits until the connections it cut are gone, so that no request meets a dead pooled one. */
async function stallAndWait(proxy: TcpProxy, schema: TestSchema): Promise<void> {
  await proxy.stall()
  const sql = 'SELECT 1 FROM pg_stat_activity WHERE application_name = $1'
  await until(async () => (await adminQuery(sql, [schema.name])).length === 0, {
    timeoutMs: 5000,
    what: "the stalled proxy's cut connections to close"
  })
}

/**
 * Guards against a request that never ends (no connect timeout at all): far above every timeout
 * these tests configure, so it never decides a pass, only turns a hang into a failure.
 */
const HANG_GUARD_MS = 30_000

interface TimedRequest {
  response: Response
  elapsedMs: number
  /** The log lines of this request, read once it was answered. */
  logLines: Array<{ msg: string; err?: { message: string } }>
}

/** A request with an X-Request-Id of its own, timed from send to answer, with its log lines. */
async function timedRequest(app: TestApp, path: string, headers: Record<string, string>): Promise<TimedRequest> {
  const id = `outage-${randomUUID()}`
  const started = performance.now()
  const response = await app
    .fetch(path, { headers: { ...headers, 'x-request-id': id }, signal: AbortSignal.timeout(HANG_GUARD_MS) })
    .catch((error: unknown) => assert.fail(`no answer within ${HANG_GUARD_MS} ms: ${String(error)}`))
  const elapsedMs = performance.now() - started
  const logLines = readFileSync(`${LOG_DIR}service-${process.pid}.ndjson`, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"reqId":"${id}"`))
    .map((line) => JSON.parse(line) as TimedRequest['logLines'][number])
  return { response, elapsedMs, logLines }
}

/** The 503 came from the pool's connect timeout (so its log line says), and not before the configured time. */
function assertConnectTimeout({ elapsedMs, logLines }: TimedRequest, configuredMs: number): void {
  const cause = logLines.find((line) => line.msg === 'backing store unavailable')?.err?.message ?? ''
  assert.match(cause, /connection timeout|timeout exceeded when trying to connect/, `the logged cause: ${JSON.stringify(logLines)}`)
  assert.ok(elapsedMs >= configuredMs, `answered after ${elapsedMs.toFixed(0)} ms, before the ${configuredMs} ms connect timeout`)
}

describe('PostgreSQL unavailable', { skip }, () => {
  test('nothing listening: every operation is 503 unavailable with Retry-After, /readyz 503, /healthz 200', async (t) => {
    const app = await appOn(t, `postgres://postgres@127.0.0.1:${await freePort()}/test`)
    // A well-formed key the app has never seen: its lookup needs the database.
    const headers = { authorization: `Bearer ${generateSecret()}` }
    await assertUnavailable(await app.fetch('/v1/pets', { headers }))
    await assertUnavailable(await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 }, { headers }))
    await assertUnavailable(await app.fetch('/v1/pets/1', { headers }))
    await assertNotReady(app)
  })

  test('the database goes away mid-run and comes back: 503s, then normal answers, no restart', async (t) => {
    const schema = await migratedSchema(t)
    const target = new URL(TEST_DATABASE_URL)
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) })
    t.after(() => proxy.down())
    const app = await appOn(t, via(schema.url, proxy.port))
    const before = (await (await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 })).json()) as { id: number }
    assert.equal((await app.fetch('/v1/pets')).status, 200)

    await proxy.down()
    await assertUnavailable(await app.fetch('/v1/pets'))
    await assertUnavailable(await postJson(app, '/v1/pets', { name: 'Tom', categoryId: 1 }))
    await assertUnavailable(await app.fetch(`/v1/pets/${before.id}`))
    await assertUnavailable(await app.fetch('/v1/pets', { headers: { authorization: `Bearer ${generateSecret()}` } }))
    await assertNotReady(app)

    await proxy.up()
    const list = await eventually200(app, '/v1/pets')
    assert.deepEqual(
      ((await list.json()) as Array<{ id: number }>).map((p) => p.id),
      [before.id]
    )
    assert.equal((await postJson(app, '/v1/pets', { name: 'Tom', categoryId: 1 })).status, 201)
    assert.equal((await app.fetch('/readyz', { key: null })).status, 200)
  })

  test('connections terminated by the server (57P01, as in a restart) are 503, and the pool reconnects', async (t) => {
    const schema = await migratedSchema(t)
    const app = await appOn(t, schema.url)
    assert.equal((await app.fetch('/v1/pets')).status, 200)
    const release = await lockPets(schema)
    t.after(release)
    const blocked = app.fetch('/v1/pets')
    await waitForLockWaiter(schema)
    assert.ok((await terminateConnections(schema)) >= 1)
    await assertUnavailable(await blocked)
    await release()
    await eventually200(app, '/v1/pets')
    // Idle connections killed too: the pool drops them and opens new ones.
    await terminateConnections(schema)
    await eventually200(app, '/v1/pets')
    assert.equal((await postJson(app, '/v1/pets', { name: 'after', categoryId: 1 })).status, 201)
  })

  test('a statement over DATABASE_STATEMENT_TIMEOUT_MS is 503, promptly', async (t) => {
    const schema = await migratedSchema(t)
    const app = await appOn(t, schema.url, { DATABASE_STATEMENT_TIMEOUT_MS: '300' })
    assert.equal((await app.fetch('/v1/pets')).status, 200)
    const release = await lockPets(schema)
    t.after(release)
    const started = Date.now()
    await assertUnavailable(await app.fetch('/v1/pets'))
    await assertUnavailable(await postJson(app, '/v1/pets', { name: 'x', categoryId: 1 }))
    const elapsed = Date.now() - started
    assert.ok(elapsed >= 550 && elapsed < 3000, `two timeouts of 300 ms took ${elapsed} ms`)
    await release()
    assert.equal((await app.fetch('/v1/pets')).status, 200)
  })

  test('a host that accepts but never answers: 503 from the connect timeout, after DATABASE_CONNECT_TIMEOUT_MS, then recovery', async (t) => {
    const schema = await migratedSchema(t)
    const target = new URL(TEST_DATABASE_URL)
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) })
    t.after(() => proxy.down())
    const app = await appOn(t, via(schema.url, proxy.port), { DATABASE_CONNECT_TIMEOUT_MS: '400' })
    // Before the app closes: a request still waiting for a connection would hold its close.
    defer(t, () => proxy.down())
    assert.equal((await app.fetch('/v1/pets')).status, 200)
    await stallAndWait(proxy, schema)
    const pets = await timedRequest(app, '/v1/pets', {})
    await assertUnavailable(pets.response)
    assertConnectTimeout(pets, 400)
    await assertNotReady(app)

    // Raised past its default (3000 ms), the configured timeout is still the one that answers:
    // a fixed or default timeout would have answered sooner. A key not yet cached needs the database.
    const patient = await appOn(t, via(schema.url, proxy.port), { DATABASE_CONNECT_TIMEOUT_MS: '3500' })
    defer(t, () => proxy.down())
    const lookup = await timedRequest(patient, '/v1/pets', { authorization: `Bearer ${generateSecret()}` })
    await assertUnavailable(lookup.response)
    assertConnectTimeout(lookup, 3500)

    await proxy.up()
    await eventually200(app, '/v1/pets')
  })
})
