import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runCommand, startChild, type Core } from './processes.ts'

const SCRIPT = fileURLToPath(new URL('../wrk/workload.lua', import.meta.url))

/** What one load run measured. Latencies in milliseconds. */
export interface LoadResult {
  requests: number
  seconds: number
  rps: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  /** Connect, read, write and timeout errors, plus answers that were not 2xx/3xx. */
  errors: number
  non2xx: number
}

/** How the load generator builds its requests (see wrk/workload.lua). */
export type RequestPlan =
  | { mode: 'static'; method: 'GET' | 'POST'; path: string; body?: string }
  | { mode: 'paths'; pathsFile: string }
  | { mode: 'random-id'; prefix: string; maxId: number }

/** The installed wrk's version line, or undefined when wrk is missing. */
export function wrkVersion(): string | undefined {
  const result = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  if (result.error !== undefined) return undefined
  return `${result.stdout}${result.stderr}`
    .split('\n')[0]
    ?.replace(/\s*Copyright.*$/, '')
    .trim()
}

interface WrkLine {
  requests: number
  durationUs: number
  connectErrors: number
  readErrors: number
  writeErrors: number
  statusErrors: number
  timeouts: number
  p50Us: number
  p90Us: number
  p99Us: number
  maxUs: number
}

interface Invocation {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
}

/** wrk (one thread, `connections` keep-alive connections) against `origin`, pinned and prioritised as asked. */
function invocation(
  origin: string,
  plan: RequestPlan,
  options: { key: string; seconds: number; connections: number; core: Core; realtime: boolean; stopAfter?: number }
): Invocation {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, BENCH_KEY: options.key, BENCH_MODE: plan.mode }
  if (options.stopAfter !== undefined) env.BENCH_STOP_AFTER = String(options.stopAfter)
  let url = `${origin}/`
  if (plan.mode === 'static') {
    url = `${origin}${plan.path}`
    env.BENCH_METHOD = plan.method
    if (plan.body !== undefined) env.BENCH_BODY = plan.body
  } else if (plan.mode === 'paths') {
    env.BENCH_PATHS_FILE = plan.pathsFile
  } else {
    env.BENCH_ID_PREFIX = plan.prefix
    env.BENCH_ID_MAX = String(plan.maxId)
  }
  const wrkArgs = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', SCRIPT, url]
  const pinned = options.core === undefined ? ['wrk', ...wrkArgs] : ['taskset', '-c', String(options.core), 'wrk', ...wrkArgs]
  const [command, ...args] = options.realtime ? ['chrt', '-f', '1', ...pinned] : pinned
  return { command: command!, args, env }
}

function parseResult(code: number | string | null, stdout: string, stderr: string): LoadResult {
  const line = /^BENCH_RESULT (\{.*\})$/m.exec(stdout)?.[1]
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}): ${`${stdout}\n${stderr}`.trim().slice(-800)}`)
  const r = JSON.parse(line) as WrkLine
  const seconds = r.durationUs / 1e6
  return {
    requests: r.requests,
    seconds,
    rps: r.requests / seconds,
    p50Ms: r.p50Us / 1000,
    p90Ms: r.p90Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    errors: r.connectErrors + r.readErrors + r.writeErrors + r.timeouts + r.statusErrors,
    non2xx: r.statusErrors
  }
}

/**
 * Runs wrk (one thread, `connections` keep-alive connections) against `origin` for `seconds`,
 * on `core` when given, and under the real-time FIFO scheduler when `realtime` (see run.ts).
 */
export async function runWrk(
  origin: string,
  plan: RequestPlan,
  options: { key: string; seconds: number; connections: number; core: Core; realtime: boolean }
): Promise<LoadResult> {
  const { command, args, env } = invocation(origin, plan, options)
  const run = await runCommand(command, args, { env, timeoutMs: (options.seconds + 30) * 1000 })
  return parseResult(run.code, run.stdout, run.stderr)
}

/**
 * Runs wrk as runWrk does until it has received `requests` answers (it may count a few more
 * that arrive in the same turn of its loop), at most `maxSeconds`. wrk itself only stops at the
 * end of its duration: the script says when it is done and the harness ends wrk with SIGINT,
 * on which wrk prints its summary. The connections' other requests in flight (at most
 * `connections` − 1) are answered by the server but not counted.
 */
export async function runWrkRequests(
  origin: string,
  plan: RequestPlan,
  options: { key: string; requests: number; maxSeconds: number; connections: number; core: Core; realtime: boolean }
): Promise<LoadResult> {
  const { command, args, env } = invocation(origin, plan, { ...options, seconds: options.maxSeconds, stopAfter: options.requests })
  const child = startChild('wrk', command, args, { core: undefined, env })
  let stdout = ''
  let done = false
  child.process.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    if (!done && stdout.includes('BENCH_DONE\n')) {
      done = true
      child.process.kill('SIGINT')
    }
  })
  // 'close' comes after the last of its output, 'exit' may come before it.
  const closed = new Promise((resolve) => child.process.once('close', resolve))
  const code = await child.exited
  await closed
  if (!done) throw new Error(`wrk stopped before ${options.requests} answers (${code}): ${child.output().trim().slice(-800)}`)
  return parseResult(code, stdout, child.output())
}
