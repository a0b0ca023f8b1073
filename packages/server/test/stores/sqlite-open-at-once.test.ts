import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import { tempDir } from '../helpers/temp.ts'

// Several processes may open one new file together (a CLI and a server starting at once). Ten
// processes released at one moment collide on the switch to WAL in most runs.

test('processes opening a new file at once all get it in WAL mode (no "database is locked")', async (t) => {
  const path = join(tempDir(t), 'together.db')
  const opener = `
    const { SqliteStorage } = await import(${JSON.stringify(new URL('../../src/storage/sqlite/index.ts', import.meta.url).href)})
    // Every process opens the file at the same moment, once all of them have started.
    while (Date.now() < Number(process.argv[2]));
    const storage = new SqliteStorage(process.argv[1], { now: () => Date.now() })
    await storage.migrate()
    await storage.close()`
  const startAt = String(Date.now() + 1200)
  const runs = Array.from({ length: 10 }, () => runNode(['--input-type=module', '-e', opener, path, startAt]))
  assert.deepEqual(
    await Promise.all(runs),
    Array.from({ length: 10 }, () => ({ code: 0, stderr: '' }))
  )
  const db = new DatabaseSync(path)
  t.after(() => db.close())
  assert.equal((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal')
})

function runNode(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code, stderr }))
  })
}
