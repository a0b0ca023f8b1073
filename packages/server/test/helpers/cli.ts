import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { recordIssuedKey, recordProcessOutput } from './logs.ts'
import { until } from './wait.ts'

export const BIN = fileURLToPath(new URL('../../bin/animal-store.js', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `animal-store <args>` as a user would, with the given environment (`bin`: another build of the CLI). */
export function runCli(args: string[], env: Record<string, string>, bin = BIN): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => {
      // `keys create`, `keys rotate` and `operators create` print a secret by design; everything else the CLI prints is checked for secrets.
      const secret = /as_(?:live|admin)_[0-9A-Za-z]{43}/.exec(stdout)?.[0]
      const issues =
        (args[0] === 'keys' && (args[1] === 'create' || args[1] === 'rotate')) || (args[0] === 'operators' && args[1] === 'create')
      if (issues && secret !== undefined) recordIssuedKey(secret)
      else recordProcessOutput(args.join(' '), stdout)
      recordProcessOutput(`${args.join(' ')} (stderr)`, stderr)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Starts `animal-store serve` and resolves once it answers /healthz (`bin`: another build of the CLI). */
export async function startServe(
  env: Record<string, string>,
  origin: string,
  bin = BIN
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bin, 'serve'], {
    // No operator listener unless a test asks for one: 8081 is one port for every test on the machine.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'trace', ADMIN_PORT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      recordProcessOutput('serve', output)
      resolve(code)
    })
  )
  try {
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`serve exited early (${child.exitCode ?? child.signalCode})`)
        try {
          return (await fetch(`${origin}/healthz`)).ok
        } catch {
          return false // not listening yet
        }
      },
      { timeoutMs: 15_000, intervalMs: 50, what: `serve to answer ${origin}/healthz` }
    )
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`serve did not start: ${(error as Error).message}\n${output}`, { cause: error })
  }
  return { child, output: () => output, exited }
}

/** SIGKILLs the serve processes still running and waits for each to exit. */
export async function killServes(serves: readonly { child: ChildProcess }[]): Promise<void> {
  await Promise.all(
    serves.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await once(child, 'exit')
    })
  )
}
