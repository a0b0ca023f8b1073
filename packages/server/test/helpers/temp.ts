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

// Below the kernel's ephemeral range (32768–60999 on Linux): a port taken from it could be handed
// to another process's outgoing connection between this check and the server's listen.
const PORT_FLOOR = 20_000
const PORT_SPAN = 12_000

/**
 * Ports this process handed out: never handed out again. fetch keeps idle connections to an
 * origin a few seconds; a new server on a port an earlier test's server had would meet one of
 * them, closed by that server, as "other side closed".
 */
const handedOut = new Set<number>()

/** A port free right now on 127.0.0.1, so a config can name it before the server listens. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = PORT_FLOOR + Math.floor(Math.random() * PORT_SPAN)
    if (!handedOut.has(port) && (await canListen(port))) {
      handedOut.add(port)
      return port
    }
    if (attempt === 50) throw new Error(`no free port found between ${PORT_FLOOR} and ${PORT_FLOOR + PORT_SPAN}`)
  }
}

function canListen(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
