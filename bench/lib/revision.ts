// The service at another git revision, for a before/after comparison within one run: a
// throwaway worktree of this repository at that revision, installed and built the way
// `npm run bench` builds this checkout, removed when the harness exits (Ctrl-C included).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { runCommand } from './processes.ts'

export interface Revision {
  /** As given to --baseline-rev: a commit, tag or branch. */
  given: string
  commit: string
  short: string
}

/** The revision as given, with its short commit when the two differ: `main (1a2b3c4)`. */
export function revisionName(revision: Revision): string {
  return revision.commit.startsWith(revision.given.toLowerCase()) ? revision.short : `${revision.given} (${revision.short})`
}

const git = (repo: string, args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' })

/** The commit `rev` names in the repository at `repo`; throws saying why when it names none. */
export function resolveRevision(repo: string, rev: string): Revision {
  if (rev.trim() === '' || rev.startsWith('-')) throw new Error(`not a revision: ${JSON.stringify(rev)}`)
  const commit = git(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])
  if (commit.status !== 0) {
    const why = commit.stderr.trim() === '' ? '' : ` (${commit.stderr.trim()})`
    throw new Error(`${JSON.stringify(rev)} names no commit of the repository at ${repo}${why}`)
  }
  const full = commit.stdout.trim()
  const short = git(repo, ['rev-parse', '--short', full]).stdout.trim() || full.slice(0, 12)
  return { given: rev, commit: full, short }
}

/**
 * Checks `revision` out into a worktree under the system's temp folder (`git worktree add
 * --detach`), checks that it has `options.needs` (a path in the repository), runs
 * `npm ci --ignore-scripts` and `npm run build` there, and returns its root.
 * The worktree is removed (`git worktree remove --force`) by the clean-up registered through
 * `defer`, which first stops a step still running.
 */
export async function prepareWorktree(
  repo: string,
  revision: Revision,
  options: { needs: string; defer(cleanup: () => Promise<void>): void; log(line: string): void }
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `animal-store-bench-${revision.short}-`))
  const aborter = new AbortController()
  let running: Promise<unknown> = Promise.resolve()
  options.defer(async () => {
    aborter.abort()
    await running
    const removed = await runCommand('git', ['worktree', 'remove', '--force', dir], { env: process.env, cwd: repo, timeoutMs: 60_000 })
    if (removed.code !== 0) {
      // Not (or no longer) a registered worktree, e.g. interrupted while being added.
      rmSync(dir, { recursive: true, force: true })
      await runCommand('git', ['worktree', 'prune'], { env: process.env, cwd: repo, timeoutMs: 60_000 })
    }
  })
  // This Node (24) first on PATH, for npm and the scripts it runs: `--ignore-scripts` leaves the
  // worktree without the pinned Node that the `node` package installs.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` }
  const step = async (what: string, command: string, args: string[], cwd: string, timeoutMs: number) => {
    const started = performance.now()
    const work = runCommand(command, args, { env, cwd, timeoutMs, signal: aborter.signal })
    running = work
    const run = await work
    if (aborter.signal.aborted) throw new Error(`${what}: interrupted`)
    if (run.code !== 0) throw new Error(`${what} failed (${run.code}) in ${cwd}: ${(run.stderr.trim() || run.stdout.trim()).slice(-2000)}`)
    options.log(`bench: baseline ${revision.short}: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  }

  options.log(`bench: baseline ${revisionName(revision)}: worktree in ${dir}`)
  await step(`git worktree add --detach ${revision.short}`, 'git', ['worktree', 'add', '--detach', dir, revision.commit], repo, 120_000)
  if (!existsSync(join(dir, options.needs))) throw new Error(`--baseline-rev ${revision.given}: ${revision.short} has no ${options.needs}`)
  await step('npm ci --ignore-scripts', 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir, 600_000)
  const scripts = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {}
  if (scripts.build === undefined) options.log(`bench: baseline ${revision.short}: no build script; its CLI runs as that revision runs it`)
  else await step('npm run build', 'npm', ['run', 'build', '--silent'], dir, 300_000)
  return dir
}
