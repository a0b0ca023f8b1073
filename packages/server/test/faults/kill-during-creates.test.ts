import assert from 'node:assert/strict'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, test } from 'node:test'
import { runCli, startServe } from '../helpers/cli.ts'
import { nextLink } from '../helpers/links.ts'
import { freePort, tempDir } from '../helpers/temp.ts'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

describe('crash safety', () => {
  test(
    'kill -9 in the middle of 200 creates loses no acknowledged pet and leaves no half-written row; ' + 'restart needs no manual step',
    async (t) => {
      const dir = tempDir(t)
      const port = await freePort()
      const env = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, PORT: String(port), LOG_LEVEL: 'trace' }
      const origin = `http://127.0.0.1:${port}`
      const { key } = JSON.parse(
        (await runCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '100000', '--per-day', '100000', '--json'], env)).stdout
      ) as { key: string }
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
      const first = await startServe(env, origin)
      t.after(() => first.child.kill('SIGKILL'))

      const acknowledged: Pet[] = []
      let next = 0
      let killed = false
      const worker = async () => {
        while (next < 200) {
          const n = next++
          const sent = { name: `crash ${n}`, categoryId: 9007199254740000 + n, status: (['available', 'pending', 'sold'] as const)[n % 3] }
          try {
            const response = await fetch(`${origin}/v1/pets`, { method: 'POST', headers, body: JSON.stringify(sent) })
            if (response.status === 201) acknowledged.push((await response.json()) as Pet)
          } catch {
            // The server died under this request: it was never acknowledged.
          }
          if (!killed && acknowledged.length >= 100) {
            killed = true
            first.child.kill('SIGKILL')
          }
        }
      }
      await Promise.all(Array.from({ length: 8 }, worker))
      await first.exited
      assert.ok(
        killed && acknowledged.length >= 100 && acknowledged.length < 200,
        `killed mid-stream after ${acknowledged.length} acknowledgements`
      )

      const second = await startServe(env, origin)
      t.after(() => second.child.kill('SIGKILL'))
      const stored: Pet[] = []
      let url: string | undefined = `${origin}/v1/pets?limit=100`
      while (url !== undefined) {
        const response: Response = await fetch(url, { headers })
        assert.equal(response.status, 200)
        stored.push(...((await response.json()) as Pet[]))
        url = nextLink(response)
      }
      const byId = new Map(stored.map((p) => [p.id, p]))
      for (const pet of acknowledged) assert.deepEqual(byId.get(pet.id), pet, `acknowledged pet ${pet.id} survived`)
      for (const pet of stored) {
        const n = Number(/^crash (\d+)$/.exec(pet.name)?.[1])
        assert.ok(Number.isInteger(n), `row ${pet.id} is whole: ${JSON.stringify(pet)}`)
        assert.equal(pet.categoryId, 9007199254740000 + n)
        assert.equal(pet.status, ['available', 'pending', 'sold'][n % 3])
      }
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
      const db = new DatabaseSync(join(dir, 'store.db'))
      assert.deepEqual(
        db
          .prepare('PRAGMA integrity_check')
          .all()
          .map((row) => ({ ...row })),
        [{ integrity_check: 'ok' }]
      )
      db.close()
    }
  )
})
