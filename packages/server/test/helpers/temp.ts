import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'

const cleanups = new WeakMap<TestContext, Array<() => unknown>>()

/**
 * Runs `cleanup` when the test ends, after every cleanup deferred later (last in, first out:
 * an app closes before the store it uses is removed). node:test runs its own `after` hooks first in, first out.
 */
export function defer(t: TestContext, cleanup: () => unknown): void {
  let stack = cleanups.get(t)
  if (stack === undefined) {
    const created: Array<() => unknown> = []
    stack = created
    cleanups.set(t, created)
    t.after(async () => {
      for (const run of created.reverse()) await run()
    })
  }
  stack.push(cleanup)
}

/** A fresh temporary directory removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'animal-store-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  defer(t, () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A port free right now on 127.0.0.1, so a config can name it before the server listens. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
