import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'
import { loadConfig } from '../../src/config.ts'

// deploy/compose.yaml as Compose reads it: the topology of DESIGN.md §9 (PostgreSQL, Redis, two
// instances of the image behind one port), health checks gating the start order, secrets from an
// env file that git ignores, and an environment the service accepts. No registry answers here, so
// the stack itself is not started; the image it builds is tested in process/container-image.test.ts.

const REPOSITORY = resolve(import.meta.dirname, '../../../..')
const DEPLOY = join(REPOSITORY, 'deploy')

interface Service {
  build?: { context: string; dockerfile: string }
  image?: string
  command?: string[]
  env_file?: string
  environment?: Record<string, string>
  read_only?: boolean
  tmpfs?: string[]
  healthcheck?: { test: string[] }
  depends_on?: Record<string, { condition: string }>
  ports?: string[]
}

const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> }
const { services } = compose

/** KEY=value lines of an env file, comments and blank lines left out. */
const envFile = (path: string) =>
  Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  )

test('PostgreSQL, Redis and two instances of the image behind one port', () => {
  assert.deepEqual(Object.keys(services).sort(), ['api-1', 'api-2', 'postgres', 'proxy', 'redis'])
  for (const name of ['api-1', 'api-2']) {
    const api = services[name]!
    assert.ok(existsSync(join(DEPLOY, api.build!.context, api.build!.dockerfile)), `${name} builds the Containerfile`)
    assert.deepEqual(api.healthcheck?.test, ['CMD', 'animal-store', 'healthcheck'])
    assert.deepEqual(api.depends_on, { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
    assert.equal(api.read_only, true, 'a read-only root, as the image is tested')
    assert.deepEqual(api.tmpfs, ['/tmp'])
  }
  for (const store of ['postgres', 'redis']) assert.ok(services[store]!.healthcheck, `${store} has a health check`)
  const proxy = services.proxy!
  assert.deepEqual(proxy.depends_on, { 'api-1': { condition: 'service_healthy' }, 'api-2': { condition: 'service_healthy' } })
  assert.deepEqual(proxy.ports, ['127.0.0.1:8080:8080'], 'one port, on loopback')
  const upstreams = proxy.command!.filter((_, i) => proxy.command![i - 1] === '--to')
  assert.deepEqual(upstreams, ['api-1:8080', 'api-2:8080'])
  assert.ok(!JSON.stringify(services).includes('8081:'), 'no operator listener published')
})

test('secrets come from an env file git ignores; the service accepts the environment it gets', () => {
  for (const service of ['api-1', 'api-2', 'postgres']) assert.equal(services[service]!.env_file, 'compose.env')
  const ignored = execFileSync('git', ['check-ignore', 'deploy/compose.env'], { cwd: REPOSITORY, encoding: 'utf8' }).trim()
  assert.equal(ignored, 'deploy/compose.env')
  const example = envFile(join(DEPLOY, 'compose.env.example'))
  assert.ok(example.POSTGRES_PASSWORD && example.DATABASE_URL?.includes(`:${example.POSTGRES_PASSWORD}@postgres:5432/`))
  const config = loadConfig({ ...example, ...services['api-1']!.environment, HOST: '0.0.0.0', ADMIN_HOST: '0.0.0.0' })
  assert.deepEqual(config.trustProxy, { hops: 1 })
  assert.equal(config.publicBaseUrl, 'http://127.0.0.1:8080/v1')
})
