import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { runCli } from '../helpers/cli.ts'
import { recordProcessOutput } from '../helpers/logs.ts'
import { findBinary } from '../helpers/proxies.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const DEPLOY = join(ROOT, 'deploy')
const UNITS = ['animal-store.service', 'animal-store-backup.service', 'animal-store-backup.timer']
const INSTALLED = '/opt/animal-store'
const SHUTDOWN_GRACE_S = 10 // serve's own limit on draining (src/cli/serve.ts)

const run = promisify(execFile)
const analyze = findBinary(['/usr/bin/systemd-analyze', '/bin/systemd-analyze'])

/** The unit's `Key=value` lines, comments and sections dropped: key to every value it was given. */
function directives(unit: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const line of readFileSync(join(DEPLOY, unit), 'utf8').split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line)
    if (match !== null) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!])
  }
  return found
}

/** The command line systemd runs for `value`: quotes taken as systemd takes them, `$$` and `%%` unescaped. */
function commandLine(value: string): string[] {
  const words = [...value.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
  return words.map((word) => word.replaceAll('$$', '$').replaceAll('%%', '%'))
}

/** `/opt/animal-store` read as the repository: the release as `npm ci && npm run build` leaves it. */
const atRepository = (text: string) => text.replaceAll(INSTALLED, ROOT.replace(/\/$/, ''))

/** deploy/animal-store.env as the service reads it, with `overrides`. */
function serviceEnvironment(overrides: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' }
  for (const line of readFileSync(join(DEPLOY, 'animal-store.env'), 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line)
    if (match !== null) env[match[1]!] = match[2]!
  }
  return { ...env, ...overrides }
}

/** Runs `argv` to its end; resolves with its exit code and output. */
function runToEnd(argv: string[], env: Record<string, string>, cwd?: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      recordProcessOutput(argv.join(' '), output)
      resolve({ code, output })
    })
  })
}

function skipReason(): string | false {
  if (analyze !== undefined) return false
  if (process.env.CI === 'true') throw new Error('systemd-analyze must run under CI=true (.ci/run installs systemd)')
  process.stderr.write('\n!!! SKIPPING systemd-analyze verify: systemd-analyze is not installed (apt-get install systemd)\n\n')
  return 'systemd-analyze is not installed'
}

describe('deploy/animal-store.service', () => {
  const skip = skipReason()

  test('systemd-analyze verify finds nothing but the release not installed here', { skip }, async (t) => {
    const dir = tempDir(t)
    for (const unit of UNITS) writeFileSync(join(dir, unit), atRepository(readFileSync(join(DEPLOY, unit), 'utf8')))
    // With the release at the repository, every command exists: verify must be silent.
    const clean = await run(analyze!, ['verify', ...UNITS.map((unit) => join(dir, unit))]).catch(
      (error: { stdout: string; stderr: string }) => error
    )
    assert.equal(`${clean.stdout}${clean.stderr}`, '', 'verify says nothing')
    // As shipped, the one complaint allowed is that /opt/animal-store holds no release on this machine.
    const shipped = await run(analyze!, ['verify', join(DEPLOY, 'animal-store.service')]).catch(
      (error: { stdout: string; stderr: string }) => error
    )
    const lines = `${shipped.stdout}${shipped.stderr}`.trim().split('\n').filter(Boolean)
    assert.ok(lines.length > 0, 'verify does check that ExecStart exists')
    for (const line of lines) assert.match(line, /Command \/opt\/animal-store\/\S+ is not executable: No such file or directory/, line)
  })

  test('systemd-analyze security rates the sandbox OK', { skip }, async (t) => {
    for (const unit of ['animal-store.service', 'animal-store-backup.service']) {
      const report = await run(analyze!, ['security', '--offline=true', join(DEPLOY, unit)]).catch((error: { stdout: string }) => error)
      const overall = /Overall exposure level for \S+: ([0-9.]+) (\w+)/.exec(report.stdout)
      assert.ok(overall !== null, report.stdout)
      t.diagnostic(`${unit}: exposure ${overall[1]} ${overall[2]}`)
      assert.ok(Number(overall[1]) <= 2, `${unit}: exposure ${overall[1]} (at most 2.0, "OK")`)
    }
  })

  test('its own user, the env file, restart on failure, a stop timeout above the drain, a sandbox', () => {
    const unit = directives('animal-store.service')
    const one = (key: string) => {
      assert.equal(unit.get(key)?.length, 1, key)
      return unit.get(key)![0]!
    }
    assert.equal(one('User'), 'animal-store')
    assert.equal(one('EnvironmentFile'), '/etc/animal-store/env')
    assert.equal(one('Restart'), 'on-failure')
    assert.equal(one('KillSignal'), 'SIGTERM')
    assert.ok(Number(one('TimeoutStopSec')) > SHUTDOWN_GRACE_S, 'systemd waits longer than serve drains')
    assert.equal(one('StateDirectory'), 'animal-store')
    assert.equal(one('ReadWritePaths'), '/var/lib/animal-store')
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      CapabilityBoundingSet: '',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX'
    }))
      assert.equal(one(key), value, key)
    assert.ok(unit.get('SystemCallFilter')?.includes('@system-service'))
    assert.ok(!unit.has('MemoryDenyWriteExecute'), "V8's JIT needs writable executable memory")
  })

  test('ExecStart, with the release at the repository, serves and drains on SIGTERM', async (t) => {
    const unit = directives('animal-store.service')
    const argv = commandLine(atRepository(unit.get('ExecStart')![0]!))
    assert.ok(existsSync(argv[0]!) && argv.includes('serve'), argv.join(' '))
    const port = await freePort()
    const dir = tempDir(t)
    // No operator listener: 8081 is one port for every test on the machine.
    const env = serviceEnvironment({
      DATABASE_URL: `sqlite:${join(dir, 'animal-store.db')}`,
      PORT: String(port),
      ADMIN_PORT: 'off',
      LOG_LEVEL: 'warn'
    })
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd: dir, stdio: 'ignore' })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    t.after(() => child.kill('SIGKILL'))
    await until(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false
        ),
      {
        timeoutMs: 15_000,
        intervalMs: 100,
        what: "serve started from the unit's ExecStart"
      }
    )
    const links = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`).then(
      (r) => r.json() as Promise<{ servers: Array<{ url: string }> }>
    )
    assert.equal(links.servers[0]!.url, env.PUBLIC_BASE_URL, 'deploy/animal-store.env was read')
    child.kill('SIGTERM')
    assert.equal(await exited, 0)
  })

  test('the backup unit writes a checked copy; copies older than 48 hours are removed, newer kept', async (t) => {
    const dir = tempDir(t)
    const backups = join(dir, 'backups')
    const env = serviceEnvironment({ DATABASE_URL: `sqlite:${join(dir, 'animal-store.db')}` })
    assert.equal((await runCli(['migrate'], env)).code, 0)
    const unit = directives('animal-store-backup.service')
    const local = (value: string) => commandLine(atRepository(value).replaceAll('/var/backups/animal-store', backups))
    await runToEnd(['mkdir', backups], env)
    const made = await runToEnd(local(unit.get('ExecStart')![0]!), env, dir)
    assert.equal(made.code, 0, made.output)
    const copies = readdirSync(backups)
    assert.equal(copies.length, 1)
    assert.match(copies[0]!, /^animal-store-\d{8}T\d{6}Z\.db$/)
    const checked = await runCli(['check', '--json'], { DATABASE_URL: `sqlite:${join(backups, copies[0]!)}` })
    assert.equal(checked.code, 0, checked.stdout)
    const old = join(backups, 'animal-store-20000101T000000Z.db')
    writeFileSync(old, '')
    const threeDaysAgo = Date.now() / 1000 - 3 * 86400
    utimesSync(old, threeDaysAgo, threeDaysAgo)
    const pruned = await runToEnd(local(unit.get('ExecStartPost')![0]!), env)
    assert.equal(pruned.code, 0, pruned.output)
    assert.deepEqual(readdirSync(backups), copies)
  })

  test("the CLI wrapper deploy/animal-store runs the CLI with the service's Node and env file", async (t) => {
    const dir = tempDir(t)
    const envFile = join(dir, 'env')
    writeFileSync(envFile, `# a comment\nDATABASE_URL=sqlite:${join(dir, 'animal-store.db')}\n\nLOG_LEVEL=warn`)
    const env = {
      PATH: process.env.PATH ?? '',
      ANIMAL_STORE_HOME: ROOT,
      ANIMAL_STORE_ENV: envFile,
      // As root it would switch to the animal-store user, which this machine need not have.
      ANIMAL_STORE_USER: process.getuid?.() === 0 ? 'root' : 'animal-store'
    }
    const wrapper = join(DEPLOY, 'animal-store')
    assert.equal((await runToEnd([wrapper, 'migrate'], env)).code, 0)
    const checked = await runToEnd([wrapper, 'check', '--json'], env)
    assert.equal(checked.code, 0, checked.output)
    assert.equal((JSON.parse(checked.output) as { ok: boolean }).ok, true)
    // A variable given on the command line wins over the file: check another database.
    const other = await runToEnd([wrapper, 'check', '--json'], { ...env, DATABASE_URL: `sqlite:${join(dir, 'missing.db')}` })
    assert.equal(other.code, 1)
    assert.deepEqual((JSON.parse(other.output) as { problems: string[] }).problems, [`no database file at ${join(dir, 'missing.db')}`])
  })
})
