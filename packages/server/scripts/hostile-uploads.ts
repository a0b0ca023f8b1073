/**
 * Measures what refused uploads cost the service, against a real `animal-store serve` on a
 * temporary SQLite file:
 *   - one keyless POST declaring 200 MiB, streamed as fast as the socket takes it: bytes the
 *     server process read from sockets (/proc/<pid>/io rchar) until it closed, and the time;
 *   - RSS of the server before and after 20 such uploads in parallel, then GET /healthz;
 *   - 20 keyed POSTs of 1 MiB and 20 of 8 MiB through node:http: how many saw their 413.
 * Run: npm run build --silent && npx node packages/server/scripts/hostile-uploads.ts
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { uploadUntilClosed } from '../test/helpers/raw-upload.ts'
import { freePort } from '../test/helpers/temp.ts'

const MiB = 1024 * 1024
const here = import.meta.dirname
const bin = join(here, '..', 'bin', 'animal-store.js')

const rchar = (pid: number) => Number(/^rchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'latin1'))?.[1])
const rssMiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]) / 1024

/** A keyless POST declaring `declared` bytes, written until the server closes; resolves with the bytes written and ms. */
async function keylessUpload(port: number, declared: number): Promise<{ written: number; ms: number; answer: string }> {
  const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`
  const upload = await uploadUntilClosed(port, head, declared)
  return { ...upload, answer: upload.answer.split('\r\n')[0] ?? '' }
}

/** One POST of `size` bytes through node:http; resolves with the status seen, or the error code. */
function oversized(port: number, key: string, size: number): Promise<string> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: string) => {
      if (!settled) resolve(outcome)
      settled = true
    }
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': size }
      },
      (res) => {
        res.resume()
        settle(String(res.statusCode))
      }
    )
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message))
    req.end(Buffer.alloc(size, 0x20))
  })
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-uploads-'))
  const port = await freePort()
  const env = { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'warn' }
  const created = spawn(
    process.execPath,
    [bin, 'keys', 'create', '--plan', 'enterprise', '--per-minute', '100000', '--per-day', '100000'],
    {
      env
    }
  )
  let keyOutput = ''
  created.stdout.on('data', (data: Buffer) => (keyOutput += data.toString()))
  await new Promise((resolve) => created.on('close', resolve))
  const key = /as_live_[0-9A-Za-z]+/.exec(keyOutput)?.[0]
  if (key === undefined) throw new Error(`no key in: ${keyOutput}`)

  const server = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
  const pid = server.pid!
  try {
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false
      )
      if (up) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const before = rchar(pid)
    const one = await keylessUpload(port, 200 * MiB)
    const read = rchar(pid) - before
    console.log(
      `one keyless upload declaring 200 MiB: answer "${one.answer}", server read ${(read / MiB).toFixed(2)} MiB, ` +
        `client wrote ${(one.written / MiB).toFixed(2)} MiB, closed after ${Math.round(one.ms)} ms`
    )

    const rssBefore = rssMiB(pid)
    const startParallel = rchar(pid)
    const all = await Promise.all(Array.from({ length: 20 }, () => keylessUpload(port, 200 * MiB)))
    const rssAfter = rssMiB(pid)
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    console.log(
      `20 parallel keyless uploads of 200 MiB: RSS ${rssBefore.toFixed(1)} -> ${rssAfter.toFixed(1)} MiB, ` +
        `server read ${((rchar(pid) - startParallel) / MiB).toFixed(2)} MiB in all, slowest closed after ` +
        `${Math.round(Math.max(...all.map((u) => u.ms)))} ms, answers ${[...new Set(all.map((u) => u.answer))].join(' | ')}, ` +
        `/healthz ${health.status}`
    )

    for (const size of [1 * MiB, 8 * MiB]) {
      const outcomes: string[] = []
      for (let i = 0; i < 20; i++) outcomes.push(await oversized(port, key, size))
      const counts = Object.entries(Object.groupBy(outcomes, (o) => o)).map(([o, list]) => `${o}: ${list?.length}`)
      console.log(
        `${size / MiB} MiB bodies through node:http: ${outcomes.filter((o) => o === '413').length}/20 saw 413 (${counts.join(', ')})`
      )
    }
  } finally {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.on('close', resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
