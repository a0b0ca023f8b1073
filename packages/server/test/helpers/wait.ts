import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'

export interface UntilOptions {
  /** How long the condition has to come true; past it, `until` fails. */
  timeoutMs: number
  /** What is awaited, for the failure: "timed out after 5000 ms waiting for <what>". */
  what: string
  /** The pause between two checks (20 ms unless told): raise it when each check costs something, e.g. a request. */
  intervalMs?: number
}

/**
 * Waits for something to have happened instead of sleeping for a while: checks `condition` at
 * once, then every `intervalMs`, and fails naming `what` once `timeoutMs` has passed without it.
 * A condition that throws fails the wait at once: catch inside it what may be retried.
 */
export async function until(condition: () => boolean | Promise<boolean>, options: UntilOptions): Promise<void> {
  const { timeoutMs, what, intervalMs = 20 } = options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    if (Date.now() >= deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await delay(intervalMs)
  }
}

/** Waits for the start of a new UTC minute when the current one is nearly over: a test's requests must share one minute window. */
export async function roomInMinute(seconds = 15): Promise<void> {
  const into = Date.now() % 60_000
  if (into > 60_000 - seconds * 1000) await delay(60_000 - into + 100)
}
