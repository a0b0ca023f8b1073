import { createServer } from 'node:net'

/** A port nothing listens on right now, on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export interface Answer {
  status: number
  headers: Headers
  body: string
}

/** One request with the bench key, bounded by `timeoutMs`. */
export async function call(
  origin: string,
  path: string,
  key: string,
  init: { method?: string; body?: string; timeoutMs?: number } = {}
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${origin}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body,
    signal: AbortSignal.timeout(Math.ceil(init.timeoutMs ?? 10_000))
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `GET path` every `intervalMs` until it answers 200, `exited` settles, or `timeoutMs`
 * passes. Resolves with the moment (performance.now()) of the first 200.
 */
export async function waitFor200(
  origin: string,
  path: string,
  key: string,
  options: { timeoutMs: number; intervalMs: number; exited: Promise<unknown> }
): Promise<number> {
  let gone = false
  void options.exited.then(() => {
    gone = true
  })
  const deadline = performance.now() + options.timeoutMs
  let last = 'no answer yet'
  while (performance.now() < deadline) {
    if (gone) throw new Error(`the process exited before answering (${last})`)
    try {
      const answer = await call(origin, path, key, { timeoutMs: Math.max(100, deadline - performance.now()) })
      if (answer.status === 200) return performance.now()
      last = `${answer.status} ${answer.body.slice(0, 200)}`
    } catch (error) {
      last = (error as Error).message
    }
    await sleep(options.intervalMs)
  }
  throw new Error(`no 200 from ${path} within ${options.timeoutMs} ms (last: ${last})`)
}

const NEXT_LINK = /<([^>]+)>\s*;\s*rel="?next"?/

/**
 * The path of the first `pages` pages of `firstPath`, following `Link: rel="next"`. A target
 * that sends no links at all (the ceiling) gets synthetic cursor URLs of the same shape; a
 * store with fewer pages repeats the pages it has.
 */
export async function collectPages(
  origin: string,
  firstPath: string,
  key: string,
  pages: number
): Promise<{ paths: string[]; followed: number }> {
  const paths = [firstPath]
  let followed = 0
  for (let i = 1; i < pages; i++) {
    const answer = await call(origin, paths[i - 1]!, key)
    if (answer.status !== 200) throw new Error(`GET ${paths[i - 1]} answered ${answer.status}: ${answer.body.slice(0, 200)}`)
    const next = NEXT_LINK.exec(answer.headers.get('link') ?? '')?.[1]
    if (next === undefined) break
    const url = new URL(next, origin)
    paths.push(`${url.pathname}${url.search}`)
    followed++
  }
  const real = paths.length
  for (let i = real; i < pages; i++) {
    paths.push(followed === 0 ? `${firstPath}&cursor=${Buffer.from(`*:${i * 20}`).toString('base64url')}` : paths[i % real]!)
  }
  return { paths, followed }
}
