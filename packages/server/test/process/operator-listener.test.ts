import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { AuditEvent, UsageBucket } from '@animal-store/contract'
import { runCli, startServe } from '../helpers/cli.ts'
import { freePort, tempDir } from '../helpers/temp.ts'

/** Holds `port` on 127.0.0.1 until the test ends, unless something else already holds it: taken either way. */
async function occupy(t: { after(fn: () => unknown): void }, port: number): Promise<void> {
  const server: Server = createServer()
  server.listen(port, '127.0.0.1')
  // Not events.once: its 'listening' promise rejects on 'error', and a port already taken is fine here.
  const failed = await new Promise<Error | undefined>((resolve) => {
    server.once('listening', () => resolve(undefined))
    server.once('error', resolve)
  })
  if (failed === undefined) t.after(() => new Promise((resolve) => server.close(resolve)))
}

async function created(env: Record<string, string>, args: string[]): Promise<{ id: string; key?: string; token?: string }> {
  const result = await runCli([...args, '--json'], env)
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout) as { id: string; key?: string; token?: string }
}

describe('animal-store serve: the operator listener', () => {
  test('usage history and the audit log survive SIGTERM and a restart; SIGTERM closes both listeners', async (t) => {
    const dir = tempDir(t)
    const [port, adminPort] = [await freePort(), await freePort()]
    const env = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, PORT: String(port), ADMIN_PORT: String(adminPort) }
    const { token } = await created(env, ['operators', 'create', '--role', 'viewer', '--name', 'night shift'])
    const { id, key } = await created(env, ['keys', 'create', '--plan', 'pro'])
    const origin = `http://127.0.0.1:${port}`
    const admin = `http://127.0.0.1:${adminPort}/admin/v1`
    const read = async <T>(path: string): Promise<T> => {
      const response = await fetch(admin + path, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(response.status, 200, await response.clone().text())
      return (await response.json()) as T
    }
    const allowed = async () => (await read<UsageBucket[]>(`/keys/${id}/usage?granularity=day`)).reduce((sum, b) => sum + b.allowed, 0)

    const first = await startServe(env, origin)
    t.after(() => first.child.kill('SIGKILL'))
    for (let i = 0; i < 7; i++)
      assert.equal((await fetch(`${origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status, 200)
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0, first.output())
    await assert.rejects(fetch(`${admin}/me`), 'the operator listener is closed too')

    const second = await startServe(env, origin)
    t.after(() => second.child.kill('SIGKILL'))
    assert.equal(await allowed(), 7, 'the counts of the stopped instance were stored at SIGTERM')
    assert.deepEqual(
      (await read<AuditEvent[]>('/audit')).map((e) => e.action),
      ['key.create', 'customer.create', 'operator.create']
    )
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0, second.output())
  })

  test('the default port taken: one line says so and the API is served; a chosen port taken or a bad value stops start-up', async (t) => {
    const dir = tempDir(t)
    const port = await freePort()
    const env = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, PORT: String(port) }
    // 8081 held by this test (or already by another process on the machine): taken either way.
    await occupy(t, 8081)
    const served = await startServe({ ...env, ADMIN_PORT: '' }, `http://127.0.0.1:${port}`)
    t.after(() => served.child.kill('SIGKILL'))
    const lines = served
      .output()
      .split('\n')
      .filter((line) => line.includes('8081'))
    assert.equal(lines.length, 1, served.output())
    assert.match(lines[0]!, /operator port 8081 is in use .*serving the API without the operator listener/)
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200)
    served.child.kill('SIGTERM')
    assert.equal(await served.exited, 0)

    const chosen = await freePort()
    await occupy(t, chosen)
    for (const [adminPort, words] of [
      [String(chosen), `ADMIN_PORT=${chosen}: cannot listen on 127.0.0.1:${chosen} (EADDRINUSE)`],
      ['eighty', 'ADMIN_PORT="eighty" is invalid: expected an integer from 0 to 65535 or off'],
      [String(port), `ADMIN_PORT and PORT are both ${port}`]
    ]) {
      const result = await runCli(['serve'], { ...env, ADMIN_PORT: adminPort! })
      assert.equal(result.code, 1, result.stderr)
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
      assert.ok(result.stderr.includes(words!), result.stderr)
    }
  })
})
