import assert from 'node:assert/strict'
import { request, type IncomingHttpHeaders } from 'node:http'
import type { TestContext } from 'node:test'
import { runCli, startServe } from './cli.ts'
import type { RunningProxy } from './proxies.ts'
import { freePort, tempDir } from './temp.ts'

// What a reverse proxy configured from deploy/ must do in front of serve (TRUST_PROXY=1): one
// scenario, run by the nginx and the Caddy tests alike.

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request to the proxy on 127.0.0.1:`port`, from the loopback address `from`. */
function send(
  port: number,
  from: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string }
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, localAddress: from, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      }
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

const remaining = (answer: Answer) => Number(answer.headers['x-ratelimit-remaining'])
const json = (answer: Answer) => JSON.parse(answer.body) as Record<string, unknown>

/** Keyless requests count against the client's address at Free numbers: 60 a minute. */
async function addressLimits(port: number): Promise<void> {
  // Should the minute end half-way, the windows differ (X-RateLimit-Reset): start again in the new one.
  for (let attempt = 1; ; attempt++) {
    const first = await send(port, '127.0.0.2', { path: '/v1/pets' })
    assert.equal(first.status, 401)
    const reset = first.headers['x-ratelimit-reset']
    // The client claims to be another address; the proxy records where the request really came
    // from. A new one each attempt: an earlier attempt's request may already be in this minute.
    const claimed = `127.0.0.${10 + attempt}`
    const spoofed = await send(port, '127.0.0.2', { path: '/v1/pets', headers: { 'x-forwarded-for': claimed } })
    const answers = [first, spoofed]
    while (answers.at(-1)!.status !== 429 && answers.length <= 70) answers.push(await send(port, '127.0.0.2', { path: '/v1/pets' }))
    const other = await send(port, claimed, { path: '/v1/pets' })
    const again = await send(port, '127.0.0.2', { path: '/v1/pets' })
    if ([...answers, other, again].some((answer) => answer.headers['x-ratelimit-reset'] !== reset) && attempt < 3) continue
    assert.equal(remaining(spoofed), remaining(first) - 1, "the spoofed entry counted against the client's own address")
    assert.equal(answers.at(-1)!.status, 429)
    assert.equal(answers.length, remaining(first) + 2, 'the address was refused once its minute was spent')
    assert.equal(json(answers.at(-1)!).code, 'rate_limited')
    assert.equal(other.status, 401, 'the other address is not refused')
    assert.equal(remaining(other), 59, "the other address's quota is intact")
    assert.equal(again.status, 429)
    return
  }
}

/** Runs the scenario against `start`'s proxy in front of a fresh serve. */
export async function behindProxy(t: TestContext, start: (upstreamPort: number) => Promise<RunningProxy>): Promise<void> {
  const servePort = await freePort()
  const env = {
    DATABASE_URL: `sqlite:${tempDir(t)}/store.db`,
    PORT: String(servePort),
    TRUST_PROXY: '1',
    PUBLIC_BASE_URL: 'https://api.example.test/v1'
  }
  const { key } = JSON.parse((await runCli(['keys', 'create', '--plan', 'pro', '--json'], env)).stdout) as { key: string }
  const served = await startServe(env, `http://127.0.0.1:${servePort}`)
  t.after(() => served.child.kill('SIGKILL'))
  const proxy = await start(servePort)
  const keyed = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const post = (body: string) => send(proxy.port, '127.0.0.4', { method: 'POST', path: '/v1/pets', headers: keyed, body })

  await t.test('two clients are limited apart; an X-Forwarded-For entry the client wrote is ignored', () => addressLimits(proxy.port))

  await t.test('a 17 KiB body is answered 413 with the Error body, by the service; a larger one by the proxy alike', async () => {
    const tooLarge = await post(JSON.stringify({ name: 'x'.repeat(17 * 1024), categoryId: 1 }))
    assert.equal(tooLarge.status, 413, tooLarge.body)
    assert.match(String(tooLarge.headers['content-type']), /^application\/json/)
    assert.deepEqual(Object.keys(json(tooLarge)).sort(), ['code', 'message', 'status'])
    assert.equal(json(tooLarge).code, 'payload_too_large')
    assert.ok(tooLarge.headers['x-ratelimit-limit'] !== undefined, 'the service answered (its rate-limit headers)')
    const huge = 'x'.repeat(64 * 1024)
    const chunked = { ...keyed, 'transfer-encoding': 'chunked' }
    for (const [how, headers] of [
      ['declared', keyed],
      ['chunked', chunked]
    ] as const) {
      const refused = await send(proxy.port, '127.0.0.4', { method: 'POST', path: '/v1/pets', headers, body: huge })
      assert.equal(refused.status, 413, `${how}: ${refused.body}`)
      assert.match(String(refused.headers['content-type']), /^application\/json/)
      assert.equal(json(refused).code, 'payload_too_large')
    }
  })

  await t.test('Location and Link use PUBLIC_BASE_URL', async () => {
    for (const name of ['Rex', 'Tom']) {
      const created = await post(JSON.stringify({ name, categoryId: 2 }))
      assert.equal(created.status, 201, created.body)
      assert.equal(created.headers.location, `https://api.example.test/v1/pets/${String(json(created).id)}`)
    }
    const page = await send(proxy.port, '127.0.0.4', { path: '/v1/pets?limit=1', headers: keyed })
    assert.equal(page.status, 200)
    assert.match(String(page.headers.link), /^<https:\/\/api\.example\.test\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/)
  })

  await t.test("X-Request-Id is passed through, and the proxy's own is sent when the client sent none", async () => {
    const sent = await send(proxy.port, '127.0.0.4', { path: '/healthz', headers: { 'x-request-id': 'trace-42.a_b' } })
    assert.equal(sent.headers['x-request-id'], 'trace-42.a_b')
    const none = await send(proxy.port, '127.0.0.4', { path: '/healthz' })
    assert.match(String(none.headers['x-request-id']), proxy.ownRequestId)
  })

  if (proxy.redirectPort !== undefined) {
    const redirectPort = proxy.redirectPort
    await t.test('plain HTTP is redirected to HTTPS with the method kept', async () => {
      const redirected = await send(redirectPort, '127.0.0.4', { path: '/v1/pets?limit=5', headers: { host: 'api.example.test' } })
      assert.equal(redirected.status, 308)
      assert.equal(redirected.headers.location, 'https://api.example.test/v1/pets?limit=5')
    })
  }

  await t.test('the service down: the proxy answers 503 with the Error body and Retry-After', async () => {
    served.child.kill('SIGTERM')
    assert.equal(await served.exited, 0)
    const down = await send(proxy.port, '127.0.0.4', { path: '/v1/pets', headers: keyed })
    assert.equal(down.status, 503)
    assert.equal(down.headers['retry-after'], '5')
    assert.match(String(down.headers['content-type']), /^application\/json/)
    assert.equal(json(down).code, 'unavailable')
  })
}
