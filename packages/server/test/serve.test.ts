import assert from 'node:assert/strict'
import { request } from 'node:http'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { runCli, startServe } from './helpers/cli.ts'
import { freePort, tempDir } from './helpers/temp.ts'

describe('animal-store serve', () => {
  test('serves on the configured port, creates the data folder, and SIGTERM drains in-flight requests then exits 0', async (t) => {
    const dir = tempDir(t)
    const port = await freePort()
    const env = { DATABASE_URL: `sqlite:${join(dir, 'nested', 'folder', 'store.db')}`, PORT: String(port), LOG_LEVEL: 'info' }
    const { key } = JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--json'], env)).stdout) as { key: string }
    const origin = `http://127.0.0.1:${port}`
    const server = await startServe(env, origin)
    t.after(() => server.child.kill('SIGKILL'))

    // A request whose body is still arriving when SIGTERM comes must complete.
    const inFlight = new Promise<{ status: number, body: string }>((resolve, reject) => {
      const req = request(`${origin}/v1/pets`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': '31' } }, (res) => {
        let body = ''
        res.on('data', (chunk) => { body += chunk })
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
      req.write('{"name":"late",')
      setTimeout(() => req.end('"categoryId":12}'), 300)
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    server.child.kill('SIGTERM')
    const response = await inFlight
    assert.equal(response.status, 201, response.body)
    assert.equal(JSON.parse(response.body).name, 'late')
    assert.equal(await server.exited, 0, server.output())
    assert.match(server.output(), /draining in-flight requests/)
    assert.ok(!server.output().includes(key), 'the key never reaches the log')
  })
})
