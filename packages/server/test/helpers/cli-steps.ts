import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import { sqliteBackend, type Backend } from './backends.ts'
import { runCli, type CliResult } from './cli.ts'

// The steps the CLI suites repeat: a command that must succeed, one that must be refused, a fresh
// migrated store.

export type Env = Record<string, string>
/** A command line: its words, or a string of words split at spaces (no word holds one). */
export type Args = string | string[]
export const words = (args: Args) => (typeof args === 'string' ? args.split(' ') : args)

/** Runs the command, which must exit 0 with nothing on stderr; its stdout. */
export async function ok(env: Env, args: Args): Promise<string> {
  const result = await runCli(words(args), env)
  assert.equal(result.code, 0, `${words(args).join(' ')}: ${result.stderr}`)
  assert.equal(result.stderr, '', words(args).join(' '))
  return result.stdout
}

/** Runs the command, which must succeed, and parses what it printed. */
export const json = async <T>(env: Env, args: Args) => JSON.parse(await ok(env, args)) as T

/** A refusal: exit 2, one line on stderr matching `message`, nothing on stdout. */
export function assertRefused(result: CliResult, message: RegExp, what: string): void {
  assert.equal(result.code, 2, `${what}: ${result.stderr}`)
  assert.equal(result.stdout, '', what)
  assert.match(result.stderr, /^animal-store: [^\n]+\n$/, `${what}: one line`)
  assert.match(result.stderr, message, what)
}

/** A fresh store of `backend`, migrated by `animal-store migrate`; its environment. */
export async function migrated(t: TestContext, backend: Backend = sqliteBackend): Promise<Env> {
  const env = await backend.environment(t)
  await ok(env, 'migrate')
  return env
}
