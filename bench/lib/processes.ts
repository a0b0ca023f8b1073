import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/** The CPU a process runs on; undefined runs it unpinned. */
export type Core = number | undefined

export interface Child {
  name: string
  pid: number
  process: ChildProcess
  /** The last 16 KiB of its stdout and stderr, for error messages. */
  output(): string
  /** Resolves with the exit code (or the signal name) once it has exited. */
  exited: Promise<number | string | null>
}

const OUTPUT_KEEP = 16 * 1024
const live = new Set<ChildProcess>()

/** True when `taskset` is there to pin processes to a core. */
export function canPin(): boolean {
  return spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0
}

/**
 * True when this user may run a command under the real-time FIFO scheduler (`chrt -f 1`):
 * root, or CAP_SYS_NICE, or an rtprio limit in limits.conf.
 */
export function canRunRealtime(): boolean {
  return spawnSync('chrt', ['-f', '1', 'true'], { stdio: 'ignore' }).status === 0
}

/** Pins this process (all its threads) to one core, so the harness never competes with the server. */
export function pinSelf(core: Core): void {
  if (core === undefined) return
  spawnSync('taskset', ['-a', '-p', '-c', String(core), String(process.pid)], { stdio: 'ignore' })
}

/**
 * Starts a child, pinned with `taskset -c <core>` when a core is given (taskset execs the
 * command, so the pid is the command's own). Every child is killed when the harness exits.
 */
export function startChild(
  name: string,
  command: string,
  args: string[],
  options: { core: Core; env: NodeJS.ProcessEnv; cwd?: string; logFile?: string }
): Child {
  const [file, argv] = options.core === undefined ? [command, args] : ['taskset', ['-c', String(options.core), command, ...args]]
  // With a log file, its output goes there, as a service manager takes it: the harness reads none of it while it runs.
  const logFd = options.logFile === undefined ? undefined : openSync(options.logFile, 'a')
  const out = logFd ?? 'pipe'
  const child = spawn(file, argv, { env: options.env, cwd: options.cwd, stdio: ['ignore', out, out] })
  if (logFd !== undefined) closeSync(logFd)
  live.add(child)
  let output = ''
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8')
    if (output.length > OUTPUT_KEEP * 2) output = output.slice(-OUTPUT_KEEP)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | string | null>((resolve) => {
    child.on('error', (error) => {
      output += `\n${error.message}`
      live.delete(child)
      resolve(null)
    })
    child.on('exit', (code, signal) => {
      live.delete(child)
      resolve(code ?? signal)
    })
  })
  const tail = () => (options.logFile === undefined ? output.slice(-OUTPUT_KEEP) : fileTail(options.logFile) + output)
  return { name, pid: child.pid ?? -1, process: child, output: tail, exited }
}

/** The last OUTPUT_KEEP bytes of a file. */
function fileTail(path: string): string {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const buffer = Buffer.alloc(Math.min(size, OUTPUT_KEEP))
    readSync(fd, buffer, 0, buffer.length, size - buffer.length)
    return buffer.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Resolves once it has exited. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<number | string | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.exited
  child.process.kill('SIGTERM')
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs)
  })
  const first = await Promise.race([child.exited, timeout])
  clearTimeout(timer)
  if (first !== 'timeout') return first
  child.process.kill('SIGKILL')
  return child.exited
}

/** Last resort on exit: kills whatever is still running, synchronously. */
export function killAllChildren(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL')
    } catch {
      // already gone
    }
  }
  live.clear()
}

/** Runs a command to completion (bounded by `timeoutMs`, or killed when `signal` aborts) and returns its output. */
export function runCommand(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string; signal?: AbortSignal }
): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal })
    live.add(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${options.timeoutMs} ms)`
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.on('error', (error) => {
      // Aborted: the child got SIGTERM and is still exiting; 'close' resolves once it has.
      if (error.name === 'AbortError') return
      clearTimeout(timer)
      live.delete(child)
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      live.delete(child)
      resolve({ code: code ?? signal, stdout, stderr })
    })
  })
}
