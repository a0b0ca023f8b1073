import { execFile, spawn } from 'node:child_process'
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

// Podman as these machines run it (DESIGN.md §9): every command with `--runtime runc` (crun
// refuses this kernel's mixed cgroups), `run` and `build` with ulimits no higher than the
// current ones, the host's network (to reach its PostgreSQL and Redis), and `--format docker`
// so that HEALTHCHECK is kept.

const run = promisify(execFile)
export const REPOSITORY = resolve(import.meta.dirname, '../../../..')
/** The local stand-in for the public Debian base, made from Debian's packages and kept between runs. */
export const BASE_IMAGE = 'localhost/animal-store-base:bookworm-slim'
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1000:1000']
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Why the container tests cannot run here, or undefined; under CI=true a missing tool fails the run. */
export function containerSkip(): string | false {
  const missing = ['/usr/bin/podman', '/usr/sbin/runc', '/usr/bin/mmdebstrap'].filter((path) => !executable(path))
  if (missing.length === 0) return false
  const why = `${missing.join(', ')} missing (apt-get install podman buildah runc mmdebstrap)`
  if (process.env.CI === 'true') throw new Error(`the container tests must run under CI=true: ${why}`)
  process.stderr.write(`\n!!! SKIPPING the container image tests: ${why}\n\n`)
  return why
}

/** Runs `podman <args>` (with the runtime every command here needs); rejects with its output when it fails. */
export async function podman(args: string[], options: { timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  return run('podman', ['--runtime', 'runc', ...args], { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 })
}

/** `podman <args>`'s exit code, whatever it is. */
export function podmanStatus(args: string[]): Promise<number> {
  return new Promise((done) => {
    const child = spawn('podman', ['--runtime', 'runc', ...args], { stdio: 'ignore' })
    child.on('close', (code) => done(code ?? -1))
  })
}

/** The options `podman run` needs here. */
export const RUN_OPTIONS = [...ULIMITS, '--network', 'host']

/** Makes BASE_IMAGE from Debian's packages (mmdebstrap minbase, merged /usr, no apt lists) unless it exists. */
export async function ensureBaseImage(): Promise<void> {
  if ((await podmanStatus(['image', 'exists', BASE_IMAGE])) === 0) return
  await inTempDir('animal-store-base-', (dir) => makeBase(join(dir, 'base.tar')))
}

/** Runs `work` in a fresh temporary directory, removed after it, whatever happened. */
async function inTempDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  try {
    return await work(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function makeBase(tar: string): Promise<void> {
  const mirror = 'http://deb.debian.org/debian'
  // Without apt's package lists and caches, as Debian's slim images are.
  const slim = '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb'
  const args = ['--variant=minbase', '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr', slim, 'bookworm', tar, mirror]
  await run('mmdebstrap', args, {
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024
  })
  await podman(['import', tar, BASE_IMAGE], { timeoutMs: 300_000 })
}

/**
 * Builds the image from what a clean checkout holds (every file git tracks or would track, as it
 * is now; never node_modules or a build) and returns how long the build took.
 */
export function buildImage(tag: string, revision: string): Promise<number> {
  return inTempDir('animal-store-context-', (context) => build(context, tag, revision))
}

async function build(context: string, tag: string, revision: string): Promise<number> {
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPOSITORY,
    maxBuffer: 64 * 1024 * 1024
  })
  for (const file of stdout.split('\0').filter((name) => name !== '')) {
    try {
      mkdirSync(join(context, file, '..'), { recursive: true })
      cpSync(join(REPOSITORY, file), join(context, file))
    } catch {
      // A file git knows that is gone from the work tree (deleted, not yet committed).
    }
  }
  const version = (JSON.parse(readFileSync(join(REPOSITORY, 'packages/server/package.json'), 'utf8')) as { version: string }).version
  const started = Date.now()
  await podman(
    [
      'build',
      '--format',
      'docker',
      // No intermediate images left behind: each context would leave ~1.6 GB of build stage.
      '--layers=false',
      ...ULIMITS,
      '--network',
      'host',
      '--build-arg',
      `BASE=${BASE_IMAGE}`,
      '--build-arg',
      `VERSION=${version}`,
      '--build-arg',
      `REVISION=${revision}`,
      // This machine's HTTPS is re-signed by a local authority: npm ci needs its bundle, which is never stored in a layer.
      '--secret',
      `id=ca,src=${CA_BUNDLE}`,
      '-t',
      tag,
      context
    ],
    { timeoutMs: 900_000 }
  )
  return Date.now() - started
}
