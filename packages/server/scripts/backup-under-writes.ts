/**
 * Measures online backups of the embedded SQLite file against a real `animal-store serve` that
 * takes creates from 4 clients while a fifth, keyed, times GET /v1/pets?limit=10 one at a time:
 *   - the serving latency (p50/p99) with no backup, during `animal-store backup` (the CLI), and
 *     during each other way of copying, run in a process of its own like the CLI;
 *   - how long each takes, and how often SQLite restarted the copy (pages left going up).
 * Ways: the backup API in one step (what `backup` does), in steps of 100 and 1000 pages, and
 * VACUUM INTO. A way that has not finished after 60 s is given up.
 * Run: npm run build --silent && npx node packages/server/scripts/backup-under-writes.ts [pets, default 1000000]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backup, DatabaseSync } from 'node:sqlite'
import { setTimeout as delay } from 'node:timers/promises'
import { freePort } from '../test/helpers/temp.ts'

const here = import.meta.dirname
const bin = join(here, '..', 'bin', 'animal-store.js')
const GIVE_UP_MS = 60_000

/** In a child process: copies `source` to `target` one way; prints {ms, restarts} as JSON. */
async function copyOneWay(way: string, source: string, target: string): Promise<void> {
  const db = new DatabaseSync(source, { readOnly: true, timeout: 5000 })
  const start = performance.now()
  let restarts = 0
  let left = Infinity
  if (way === 'vacuum-into') db.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`)
  else {
    const rate = way === 'one-step' ? 2 ** 31 - 1 : Number(way.replace('steps-of-', ''))
    await backup(db, target, {
      rate,
      progress: ({ remainingPages }) => {
        if (remainingPages > left) restarts++
        left = remainingPages
      }
    })
  }
  process.stdout.write(JSON.stringify({ ms: performance.now() - start, restarts }))
}

function child(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  proc.stdout.on('data', (chunk) => (out += chunk))
  const done = new Promise<{ code: number | null; out: string }>((resolve) => proc.on('close', (code) => resolve({ code, out })))
  return { proc, done }
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(1)
  return `n=${String(sorted.length).padStart(5)}  p50 ${at(0.5).padStart(6)} ms  p99 ${at(0.99).padStart(6)} ms`
}

async function main(pets: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-backup-bench-'))
  const path = join(dir, 'store.db')
  const env = { ...process.env, DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'silent' }
  try {
    await child([bin, 'migrate'], env).done
    const db = new DatabaseSync(path)
    db.exec('BEGIN')
    const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, 'available')")
    for (let i = 0; i < pets; i++) insert.run(`prefilled ${i}`, i + 1)
    db.exec('COMMIT')
    db.close()
    const created = await child(
      [bin, 'keys', 'create', '--plan', 'enterprise', '--per-minute', '10000000', '--per-day', '100000000', '--json'],
      env
    ).done
    const headers = { authorization: `Bearer ${(JSON.parse(created.out) as { key: string }).key}`, 'content-type': 'application/json' }
    const port = await freePort()
    const serve = child([bin, 'serve'], { ...env, PORT: String(port) })
    const origin = `http://127.0.0.1:${port}`
    for (let ready = false; !ready; await delay(50))
      ready = await fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false
      )
    console.log(`source: ${pets} pets, ${(statSync(path).size / 1e6).toFixed(1)} MB; 4 clients create, 1 times GET /v1/pets?limit=10`)

    let running = true
    let creates = 0
    const samples: Array<{ at: number; ms: number }> = []
    const writer = async () => {
      for (let i = 0; running; i++) {
        const body = JSON.stringify({ name: `streamed ${i}`, categoryId: 2, status: 'pending' })
        if ((await fetch(`${origin}/v1/pets`, { method: 'POST', headers, body })).status === 201) creates++
      }
    }
    const prober = async () => {
      while (running) {
        const start = performance.now()
        await (await fetch(`${origin}/v1/pets?limit=10&status=pending`, { headers })).arrayBuffer()
        samples.push({ at: start, ms: performance.now() - start })
      }
    }
    const load = Promise.all([writer(), writer(), writer(), writer(), prober()])
    const window = async (name: string, work: () => Promise<string>) => {
      const [from, before] = [performance.now(), creates]
      const outcome = await work()
      const to = performance.now()
      const during = samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.ms)
      console.log(
        `${name.padEnd(22)} ${((to - from) / 1000).toFixed(2).padStart(6)} s  ${summary(during)}  ${creates - before} creates  ${outcome}`
      )
    }
    await window('no backup (5 s)', () => delay(5000).then(() => ''))
    await window('animal-store backup', async () => {
      const made = await child([bin, 'backup', join(dir, 'cli-copy.db')], env).done
      return made.code === 0 ? 'copied and checked' : `failed (${made.code})`
    })
    for (const way of ['one-step', 'steps-of-1000', 'steps-of-100', 'vacuum-into']) {
      await window(way, async () => {
        const copy = child([import.meta.filename, way, path, join(dir, `${way}.db`)])
        const timer = setTimeout(() => copy.proc.kill('SIGKILL'), GIVE_UP_MS)
        const { code, out } = await copy.done
        clearTimeout(timer)
        if (code !== 0) return `gave up after ${GIVE_UP_MS / 1000} s`
        const { ms, restarts } = JSON.parse(out) as { ms: number; restarts: number }
        return `copy ${(ms / 1000).toFixed(2)} s, ${restarts} restarts`
      })
    }
    running = false
    await load
    serve.proc.kill('SIGTERM')
    await serve.done
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const [first, source, target] = process.argv.slice(2)
if (source !== undefined && target !== undefined) await copyOneWay(first!, source, target)
else await main(Number(first ?? 1_000_000))
