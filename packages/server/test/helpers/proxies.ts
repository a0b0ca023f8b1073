import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { accessSync, chownSync, constants, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { defer, freePort, tempDir } from './temp.ts'
import { until } from './wait.ts'

// nginx and Caddy started by a test, on free ports, in front of a serve it started, with the
// repository's own configuration (deploy/) minus TLS. Each runs as a child of the test and is
// stopped by its pid.

const DEPLOY = fileURLToPath(new URL('../../../../deploy/', import.meta.url))

export interface RunningProxy {
  /** The port of the TLS site, speaking plain HTTP here. */
  port: number
  /** The port of the plain-HTTP site that redirects to HTTPS, where the configuration has one of its own. */
  redirectPort: number | undefined
  /** The shape of the X-Request-Id the proxy makes up for a request that has none. */
  ownRequestId: RegExp
}

/** The first of `candidates` that is an executable file, or undefined when the tool is not installed. */
export function findBinary(candidates: string[]): string | undefined {
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/**
 * Whether a proxy's test can run here: false when `binary` is installed; otherwise skipped with
 * a loud line, except under CI=true, where .ci/run installs it and its absence is a failure.
 */
export function proxySkip(name: string, binary: string | undefined, debianPackage: string): string | false {
  if (binary !== undefined) return false
  if (process.env.CI === 'true') throw new Error(`${name} must run under CI=true (.ci/run installs ${debianPackage})`)
  process.stderr.write(`\n!!! SKIPPING the ${name} tests: ${name} is not installed (apt-get install ${debianPackage})\n\n`)
  return `${name} is not installed`
}

/** `text` with `from` replaced everywhere by `to`; the shipped file must still contain `from`, else the test would drift from it. */
function rewrite(file: string, text: string, from: string | RegExp, to: string): string {
  const pattern = typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : new RegExp(from.source, 'gm')
  assert.ok(pattern.test(text), `${file} still has ${String(from)}`)
  return text.replace(pattern, to)
}

/**
 * deploy/nginx/animal-store.conf as a test runs it: the same upstream, map and server blocks and
 * the same proxy snippet (included from the repository), with TLS left out and the test's ports.
 */
function nginxTestSite(ports: { upstream: number; https: number; http: number }): string {
  const file = 'deploy/nginx/animal-store.conf'
  let site = readFileSync(join(DEPLOY, 'nginx', 'animal-store.conf'), 'utf8')
  site = rewrite(file, site, 'server 127.0.0.1:8080;', `server 127.0.0.1:${ports.upstream};`)
  site = rewrite(file, site, /^\s*listen \[::\]:\d+.*;\n/, '')
  site = rewrite(file, site, /^\s*listen 80;$/, `    listen 127.0.0.1:${ports.http};`)
  site = rewrite(file, site, /^\s*listen 443 ssl http2;$/, `    listen 127.0.0.1:${ports.https};`)
  site = rewrite(file, site, /^\s*ssl_[a-z_]+ .*;\n/, '')
  return rewrite(file, site, '/etc/nginx/snippets/animal-store-proxy.conf', join(DEPLOY, 'nginx', 'animal-store-proxy.conf'))
}

/** deploy/Caddyfile as a test runs it: its site on plain HTTP at the test's port, Caddy's admin API off. */
function caddyTestConfig(ports: { upstream: number; http: number }): string {
  const file = 'deploy/Caddyfile'
  let config = readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8')
  config = rewrite(file, config, /^api\.example\.com \{$/, `http://127.0.0.1:${ports.http} {`)
  config = rewrite(file, config, 'reverse_proxy 127.0.0.1:8080', `reverse_proxy 127.0.0.1:${ports.upstream}`)
  return `{\n\tadmin off\n\tauto_https off\n}\n\n${config}`
}

/** nobody:nogroup when the test runs as root, so nginx needs no `user` directive for its workers. */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}

/** Runs `binary args` until the test ends (SIGTERM to its pid); resolves once `port` accepts connections. */
async function run(
  t: TestContext,
  what: string,
  command: { binary: string; args: string[]; env?: NodeJS.ProcessEnv; user?: { uid: number; gid: number } },
  port: number
): Promise<void> {
  const child = spawn(command.binary, command.args, { stdio: ['ignore', 'pipe', 'pipe'], env: command.env, ...command.user })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  defer(t, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    await exited
  })
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}):\n${output}`)
      return listening(port)
    },
    { timeoutMs: 15_000, intervalMs: 50, what: `${what} to listen on ${port}` }
  )
}

/** nginx with deploy/nginx in front of serve on `upstream`. */
export async function startNginx(t: TestContext, binary: string, upstream: number): Promise<RunningProxy> {
  const dir = tempDir(t, 'animal-store-nginx-')
  const user = unprivileged()
  if (user !== undefined) chownSync(dir, user.uid, user.gid)
  const ports = { upstream, https: await freePort(), http: await freePort() }
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${join(dir, kind)};`)
  const http = [`access_log ${join(dir, 'access.log')};`, ...temp, nginxTestSite(ports)]
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, ['worker_processes 1;', 'events { worker_connections 256; }', 'http {', ...http, '}', ''].join('\n'))
  const args = ['-e', 'stderr', '-p', dir, '-c', conf, '-g', `daemon off; pid ${join(dir, 'nginx.pid')}; error_log stderr;`]
  await run(t, 'nginx', { binary, args, user }, ports.https)
  // nginx's $request_id: 32 hex digits, never the service's own UUID.
  return { port: ports.https, redirectPort: ports.http, ownRequestId: /^[0-9a-f]{32}$/ }
}

/** Caddy with deploy/Caddyfile in front of serve on `upstream`. */
export async function startCaddy(t: TestContext, binary: string, upstream: number): Promise<RunningProxy> {
  const dir = tempDir(t, 'animal-store-caddy-')
  const ports = { upstream, http: await freePort() }
  const file = join(dir, 'Caddyfile')
  writeFileSync(file, caddyTestConfig(ports))
  // Caddy keeps its state under XDG_DATA_HOME and XDG_CONFIG_HOME: the test's folder, not ~/.
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') }
  await run(t, 'caddy', { binary, args: ['run', '--config', file, '--adapter', 'caddyfile'], env }, ports.http)
  // Caddy's {http.request.uuid}: a UUID, like the service's own.
  return {
    port: ports.http,
    redirectPort: undefined,
    ownRequestId: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
  }
}
