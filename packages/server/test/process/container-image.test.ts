import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test, type TestContext } from 'node:test'
import { backendSkip, postgresBackend } from '../helpers/backends.ts'
import { buildImage, containerSkip, ensureBaseImage, podman, podmanStatus, REPOSITORY, RUN_OPTIONS } from '../helpers/container.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { createSchema } from '../helpers/postgres.ts'
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.ts'
import { defer, freePort } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

// The image as an operator runs it (DESIGN.md §9): built from a clean checkout on a Debian base,
// run read-only with a volume, as uid 10001 under tini; its health check, its CLI, its drain, and
// two containers sharing one key's limit on the host's PostgreSQL and Redis.

const skip = containerSkip()
const TAG = `localhost/animal-store:test-${randomBytes(4).toString('hex')}`
const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPOSITORY, encoding: 'utf8' }).trim()

/** Starts a detached container of the image with `env` on the host's network; removed after the test. */
async function startContainer(t: TestContext, name: string, env: Record<string, string>, volume?: string): Promise<void> {
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`])
  const volumeArgs = volume === undefined ? [] : ['-v', `${volume}:/var/lib/animal-store`]
  await podman(['run', '-d', '--read-only', '--name', name, ...RUN_OPTIONS, ...envArgs, ...volumeArgs, TAG])
  defer(t, () => podman(['rm', '-f', '-t', '0', name]).catch(() => {}))
}

/** Waits until the container's /readyz on `port` answers 200. */
async function ready(port: number): Promise<void> {
  await until(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined)
      return response?.status === 200
    },
    { timeoutMs: 30_000, intervalMs: 250, what: `the container on port ${port} to be ready` }
  )
}

/** `animal-store <args>` run through the image (its ENTRYPOINT), as an operator runs the CLI. */
async function cli(env: Record<string, string>, volume: string | undefined, args: string[]): Promise<string> {
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`])
  const volumeArgs = volume === undefined ? [] : ['-v', `${volume}:/var/lib/animal-store`]
  return (await podman(['run', '--rm', '--read-only', ...RUN_OPTIONS, ...envArgs, ...volumeArgs, TAG, ...args])).stdout
}

describe('the container image (Containerfile)', { skip }, () => {
  // One build for both tests; the image is removed after them.
  let buildMs = 0
  before(async () => {
    await ensureBaseImage()
    buildMs = await buildImage(TAG, revision)
  })
  after(() => podman(['rmi', '-f', TAG]).catch(() => {}))

  test('built from a clean checkout: read-only with a volume, uid 10001, healthcheck, CLI, labels, a drain under 10 s', async (t) => {
    const [inspected] = JSON.parse((await podman(['image', 'inspect', TAG])).stdout) as Array<{
      Size: number
      Healthcheck?: { Test: string[] }
      Config: { Labels: Record<string, string>; User: string; Entrypoint: string[]; Cmd: string[] }
    }>
    t.diagnostic(`image ${TAG}: ${(inspected!.Size / 1e6).toFixed(0)} MB, built in ${(buildMs / 1000).toFixed(0)} s`)
    const { Labels, User, Entrypoint, Cmd } = inspected!.Config
    const { Healthcheck } = inspected!
    assert.equal(Labels['org.opencontainers.image.title'], 'animal-store')
    assert.equal(Labels['org.opencontainers.image.revision'], revision)
    assert.equal(Labels['org.opencontainers.image.licenses'], 'Apache-2.0')
    for (const label of ['description', 'version', 'source']) assert.ok(Labels[`org.opencontainers.image.${label}`], label)
    assert.equal(User, '10001:10001')
    assert.deepEqual(Healthcheck?.Test, ['CMD', 'animal-store', 'healthcheck'])
    assert.deepEqual([Entrypoint, Cmd], [['tini', '--', 'animal-store'], ['serve']])

    const volume = `animal-store-test-${randomBytes(4).toString('hex')}`
    await podman(['volume', 'create', volume])
    defer(t, () => podman(['volume', 'rm', '-f', volume]).catch(() => {}))
    const [port, adminPort] = [await freePort(), await freePort()]
    const env = { PORT: String(port), ADMIN_PORT: String(adminPort) }
    // Not ready yet (nothing listens on the port): the health check says 1.
    assert.equal(await podmanStatus(['run', '--rm', '--read-only', ...RUN_OPTIONS, '-e', `PORT=${port}`, TAG, 'healthcheck']), 1)

    const name = `animal-store-test-${randomBytes(4).toString('hex')}`
    await startContainer(t, name, env, volume)
    await ready(port)
    assert.equal(await podmanStatus(['healthcheck', 'run', name]), 0, 'HEALTHCHECK passes once ready')
    assert.equal((await podman(['exec', name, 'id', '-u'])).stdout.trim(), '10001')
    assert.equal((await podman(['exec', name, 'cat', '/proc/1/comm'])).stdout.trim(), 'tini')
    assert.equal(await podmanStatus(['exec', name, 'touch', '/app/written']), 1, 'the root is read-only')

    const created = JSON.parse(await cli(env, volume, ['keys', 'create', '--plan', 'free', '--json'])) as { key: string }
    recordIssuedKey(created.key)
    const authorization = { authorization: `Bearer ${created.key}` }
    const pet = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}'
    })
    assert.equal(pet.status, 201, 'the key made through the image works on the serving container')
    assert.equal((await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: authorization })).status, 200)
    const console = await fetch(`http://127.0.0.1:${adminPort}/`)
    assert.equal(console.status, 200)
    assert.match(await console.text(), /<html/i, 'the operator console is served')

    const stopping = Date.now()
    await podman(['stop', '-t', '10', name], { timeoutMs: 20_000 })
    const stopMs = Date.now() - stopping
    assert.ok(stopMs < 10_000, `SIGTERM drained and exited within 10 s (took ${stopMs} ms)`)
    assert.equal((await podman(['inspect', name, '--format', '{{.State.ExitCode}}'])).stdout.trim(), '0')
    t.diagnostic(`podman stop: ${stopMs} ms`)

    // The data lives in the volume: a new container on it finds the pet.
    const again = `${name}-again`
    await startContainer(t, again, env, volume)
    await ready(port)
    const pets = (await (await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: authorization })).json()) as unknown[]
    assert.equal(pets.length, 1)
  })

  test("two containers on the host's PostgreSQL and Redis share one key's limit exactly", async (t) => {
    const pgSkip = await backendSkip(postgresBackend)
    if (pgSkip) return t.skip(pgSkip)
    const schema = await createSchema()
    defer(t, () => schema.drop())
    const env = { DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix(t), ADMIN_PORT: 'off' }
    await cli(env, undefined, ['migrate'])
    const ports = [await freePort(), await freePort()]
    for (const [i, port] of ports.entries())
      await startContainer(t, `animal-store-test-pg-${i}-${randomBytes(3).toString('hex')}`, { ...env, PORT: String(port) })
    for (const port of ports) await ready(port)
    const created = JSON.parse(await cli(env, undefined, ['keys', 'create', '--plan', 'free', '--json'])) as { key: string }
    recordIssuedKey(created.key)
    const into = Date.now() % 60_000
    if (into > 45_000) await new Promise((done) => setTimeout(done, 60_000 - into + 100))
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await fetch(`http://127.0.0.1:${ports[i % 2]!}/v1/pets?limit=1`, {
          headers: { authorization: `Bearer ${created.key}` }
        })
        await response.arrayBuffer()
        return response.status
      })
    )
    assert.equal(statuses.filter((status) => status === 200).length, 60, 'exactly the Free plan per minute across both containers')
    assert.equal(statuses.filter((status) => status === 429).length, 140)
  })
})
