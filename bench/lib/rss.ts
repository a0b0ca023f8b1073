import { readFileSync } from 'node:fs'

/** Resident set size and its high-water mark of a live process, in KiB, from /proc. */
export function readMemory(pid: number): { rssKb: number; hwmKb: number } | undefined {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1')
  } catch {
    return undefined
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') }
}

/**
 * Polls a process's RSS while a load runs, so each measurement has its own peak (VmHWM
 * only ever grows over the life of the process, which spans every workload).
 */
export class RssSampler {
  readonly #pid: number
  #peakKb = 0
  readonly #timer: ReturnType<typeof setInterval>

  constructor(pid: number, intervalMs = 100) {
    this.#pid = pid
    this.#sample()
    this.#timer = setInterval(() => this.#sample(), intervalMs)
  }

  #sample(): void {
    const memory = readMemory(this.#pid)
    if (memory !== undefined && memory.rssKb > this.#peakKb) this.#peakKb = memory.rssKb
  }

  /** Stops polling; the highest RSS seen, in MiB. */
  stop(): number {
    clearInterval(this.#timer)
    this.#sample()
    return this.#peakKb / 1024
  }
}
