import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc')
// A guard against a hung child, not a speed check: npm and tsc finish in seconds here.
const HANG_GUARD_MS = 180_000

// npm as a user's shell runs it: without the npm_* variables of an enclosing `npm test`, which
// would point the child at this repository (npm_config_local_prefix) instead of its own folder.
function npmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }
}

export interface PackedPackage {
  /** The tarball's path. */
  tarball: string
  /** The paths inside the tarball, relative to its package folder, sorted. */
  files: string[]
}

/** `npm pack` of @animal-store/client into `destination`: its `prepack` builds dist/ first, as a publish does. */
export async function packClient(destination: string): Promise<PackedPackage> {
  const args = ['pack', '--workspace', '@animal-store/client', '--pack-destination', destination, '--json']
  const { stdout } = await run('npm', args, { cwd: REPO, env: npmEnv(), timeout: HANG_GUARD_MS })
  const [report] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  if (report === undefined) throw new Error(`npm pack reported nothing: ${stdout}`)
  return { tarball: join(destination, report.filename), files: report.files.map((file) => file.path).sort() }
}

/** Installs a tarball into `project` (a folder with its own package.json) without the network: the client has no dependency to fetch. */
export async function installOffline(project: string, tarball: string): Promise<void> {
  const args = ['install', tarball, '--offline', '--ignore-scripts', '--no-package-lock', '--loglevel=error']
  await run('npm', args, { cwd: project, env: npmEnv(), timeout: HANG_GUARD_MS })
}

/** A user's tsconfig: strict, the given module settings, checking the installed .d.ts too (no skipLibCheck). */
export function writeTsconfig(project: string, name: string, compilerOptions: Record<string, unknown>, include: string[]): string {
  const path = join(project, name)
  const options = { strict: true, target: 'es2022', noEmit: true, skipLibCheck: false, typeRoots: [join(REPO, 'node_modules', '@types')] }
  writeFileSync(path, JSON.stringify({ compilerOptions: { ...options, ...compilerOptions }, include }, null, 2))
  return path
}

/** Runs the repository's TypeScript on a project; resolves with the files it read, rejects with its diagnostics. */
export async function typecheck(tsconfig: string): Promise<string[]> {
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', tsconfig, '--listFiles'], { timeout: HANG_GUARD_MS })
    return stdout.split('\n').filter((line) => line !== '')
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`${tsconfig} does not typecheck:\n${stdout}${stderr}`, { cause: error })
  }
}
