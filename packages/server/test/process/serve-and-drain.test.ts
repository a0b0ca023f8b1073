import assert from 'node:assert/strict'
import { request } from 'node:http'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { runCli, startServe } from '../helpers/cli.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { until } from '../helpers/wait.ts'

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
    const req = request(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': '31' }
    })
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8')
        })
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
    })
    req.write('{"name":"late",')
    // The server has the request once its rate limiter has admitted it (the only key in use here).
    const admitted = /^rate_limit_decisions_total\{plan="pro",outcome="allowed",window="none"\} 1$/m
    await until(async () => admitted.test(await (await fetch(`${origin}/metrics`)).text()), {
      timeoutMs: 5000,
      what: 'the server to admit the request whose body is still arriving'
    })
    server.child.kill('SIGTERM')
    await until(() => server.output().includes('draining in-flight requests'), { timeoutMs: 5000, what: 'serve to start draining' })
    req.end('"categoryId":12}')
    const response = await inFlight
    assert.equal(response.status, 201, response.body)
    assert.equal((JSON.parse(response.body) as { name: string }).name, 'late')
    assert.equal(await server.exited, 0, server.output())
    assert.ok(!server.output().includes(key), 'the key never reaches the log')
  })

  test('the request log is buffered, yet SIGTERM loses no line: every answered request is in the output once serve exits', async (t) => {
    const dir = tempDir(t)
    const port = await freePort()
    const env = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, PORT: String(port), LOG_LEVEL: 'info' }
    const { key } = JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--json'], env)).stdout) as { key: string }
    const origin = `http://127.0.0.1:${port}`
    const server = await startServe(env, origin)
    t.after(() => server.child.kill('SIGKILL'))
    // Enough lines to fill the buffer many times over, and a last few that wait in it.
    const ids = Array.from({ length: 203 }, (_, i) => `drain-log-${i}`)
    for (let i = 0; i < ids.length; i += 25) {
      await Promise.all(
        ids.slice(i, i + 25).map(async (id) => {
          const response = await fetch(`${origin}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': id } })
          assert.equal(response.status, 200)
          await response.arrayBuffer()
        })
      )
    }
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; reqId?: string })
    const logged = new Set(lines.filter((line) => line.msg === 'request').map((line) => line.reqId))
    assert.deepEqual(
      ids.filter((id) => !logged.has(id)),
      [],
      'every request has its line'
    )
    assert.ok(
      lines.some((line) => line.msg === 'stopped'),
      'the last line is written too'
    )
  })
})
