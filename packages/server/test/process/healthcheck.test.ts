import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { killServes, runCli, startServe } from '../helpers/cli.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { TcpProxy } from '../helpers/tcp-proxy.ts'
import { createSchema, postgresUnavailable, TEST_DATABASE_URL } from '../helpers/postgres.ts'

const pgReason = await postgresUnavailable()
if (pgReason !== undefined && process.env.CI === 'true') throw new Error(`PostgreSQL must be reachable under CI=true: ${pgReason}`)

test('healthcheck: 0 while serve is ready, 1 with the reason when nothing listens', async (t) => {
  const port = await freePort()
  const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}`, PORT: String(port), HOST: '0.0.0.0' }
  const none = await runCli(['healthcheck'], env)
  assert.equal(none.code, 1)
  assert.match(none.stderr, new RegExp(`http://127\\.0\\.0\\.1:${port}/readyz did not answer \\(ECONNREFUSED\\)`))
  const serve = await startServe(env, `http://127.0.0.1:${port}`)
  t.after(() => killServes([serve]))
  const ready = await runCli(['healthcheck'], env)
  assert.equal(ready.code, 0, ready.stderr)
  assert.equal(ready.stderr, '')
})

test('healthcheck: 1 while serve runs but cannot reach its database', { skip: pgReason ?? false }, async (t) => {
  const schema = await createSchema()
  t.after(() => schema.drop())
  const upstream = new URL(TEST_DATABASE_URL)
  const proxy = await TcpProxy.start({ host: upstream.hostname, port: Number(upstream.port || 5432) })
  t.after(() => proxy.down())
  const url = new URL(schema.url)
  url.host = `127.0.0.1:${proxy.port}`
  const port = await freePort()
  const env = { DATABASE_URL: url.toString(), PORT: String(port), DATABASE_CONNECT_TIMEOUT_MS: '500' }
  const serve = await startServe(env, `http://127.0.0.1:${port}`)
  t.after(() => killServes([serve]))
  assert.equal((await runCli(['healthcheck'], env)).code, 0)
  await proxy.down()
  const down = await runCli(['healthcheck'], env)
  assert.equal(down.code, 1)
  assert.match(down.stderr, /\/readyz answered 503: .*database/)
})
