import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { LINGER_MAX_BYTES } from '../../src/http/hooks/connections/lingering-close.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/assertions.ts'
import { LOG_DIR } from '../helpers/logs.ts'
import { uploadUntilClosed } from '../helpers/raw-upload.ts'
import { until } from '../helpers/wait.ts'

const MiB = 1024 * 1024

/** Bytes the server read from each connection, known once the connection closed. */
function serverReads(app: TestApp): number[] {
  const reads: number[] = []
  app.app.server.on('connection', (socket: Socket) => socket.once('close', () => reads.push(socket.bytesRead)))
  return reads
}

interface Upload {
  /** The status line and headers of the answer, lower-cased. */
  head: string
  body: string
}

/**
 * A client that ignores the answer and the server's FIN and keeps writing a body of `declared`
 * bytes until the server closes the connection. The head gets a Content-Length unless it is
 * chunked or already ends with its blank line.
 */
async function hostileUpload(app: TestApp, head: string, declared: number): Promise<Upload> {
  const framing = head.includes('Transfer-Encoding') ? '' : `Content-Length: ${declared}\r\n`
  const framed = head.endsWith('\n\n') ? head.replaceAll('\n', '\r\n') : `${head.replaceAll('\n', '\r\n')}${framing}\r\n`
  const { answer } = await uploadUntilClosed(Number(new URL(app.origin).port), framed, declared)
  const [first = '', body = ''] = answer.split('\r\n\r\n')
  return { head: first.toLowerCase(), body }
}

/** One request through node:http; resolves with the status it saw, or the error code it met first. */
function nodeHttpPost(app: TestApp, key: string, size: number): Promise<string> {
  const { port } = new URL(app.origin)
  return new Promise((resolve) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': size }
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/pets', headers }, (res) => {
      res.resume()
      resolve(String(res.statusCode))
      req.destroy()
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    req.end(Buffer.alloc(size, 0x20))
  })
}

interface RawAnswer {
  status: number
  /** Header names lower-cased. */
  headers: Map<string, string>
  body: string
}

/** Writes raw bytes and reads one answer (to its Content-Length, or to the close). */
function rawExchange(app: TestApp, bytes: string): Promise<RawAnswer | undefined> {
  const { port } = new URL(app.origin)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let data = Buffer.alloc(0)
    const parse = (): RawAnswer | undefined => {
      const end = data.indexOf('\r\n\r\n')
      if (end < 0) return undefined
      const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n')
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()])
      )
      const body = data.subarray(end + 4)
      const length = Number(headers.get('content-length') ?? Number.NaN)
      if (Number.isFinite(length) && body.length < length) return undefined
      return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') }
    }
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      const answer = parse()
      if (answer !== undefined) {
        socket.destroy()
        resolve(answer)
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(parse()))
    socket.write(bytes)
  })
}

/** The answer is an Error body of `code` whose `status` is the status line's, with an X-Request-Id. */
function assertErrorAnswer(answer: RawAnswer | undefined, code: string): void {
  assert.ok(answer !== undefined, 'no answer at all')
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/)
  assert.ok((answer.headers.get('x-request-id') ?? '') !== '', 'X-Request-Id')
  const body = JSON.parse(answer.body) as { code: string; status: number; message: string }
  assert.equal(body.code, code)
  assert.equal(body.status, answer.status)
  assert.ok(body.message.length > 0)
}

async function assertReadBounded(reads: number[], what: string): Promise<void> {
  await until(() => reads.length > 0, { timeoutMs: 10_000, what: `the server to close the connection of ${what}` })
  // The bound, plus what one read and the request stream's buffer can hold past it.
  assert.ok(reads[0]! < LINGER_MAX_BYTES + 256 * 1024, `${what}: the server read ${reads[0]} bytes`)
}

describe('a refused request is answered, not read', { concurrency: true }, () => {
  const cases: Array<{ name: string; status: number; head: (app: TestApp, key: string) => string }> = [
    { name: 'no key (401)', status: 401, head: () => 'POST /v1/pets HTTP/1.1\nHost: x\nContent-Type: application/json\n' },
    { name: 'unknown route (404)', status: 404, head: (_, key) => `POST /v1/nothing HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\n` },
    {
      name: 'known path, other method (405)',
      status: 405,
      head: (_, key) => `PUT /v1/pets HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\n`
    },
    {
      name: 'too large (413)',
      status: 413,
      head: (_, key) => `POST /v1/pets HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\nContent-Type: application/json\n`
    },
    {
      name: 'media type (415)',
      status: 415,
      head: (_, key) => `POST /v1/pets HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\nContent-Type: text/csv\n`
    },
    { name: 'a route that reads no body (200)', status: 200, head: () => 'GET /healthz HTTP/1.1\nHost: x\n' },
    { name: 'chunked, no key (401)', status: 401, head: () => 'POST /v1/pets HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n' },
    {
      name: 'Content-Encoding (415)',
      status: 415,
      head: (_, key) =>
        `POST /v1/pets HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\nContent-Type: application/json\nContent-Encoding: gzip\n`
    },
    { name: 'Expect: foo (417)', status: 417, head: () => 'POST /healthz HTTP/1.1\nHost: x\nExpect: foo\n' },
    { name: 'a malformed request line (400)', status: 400, head: () => 'GARBAGE\n\n' },
    { name: 'CONNECT (400)', status: 400, head: () => 'CONNECT example.com:443 HTTP/1.1\nHost: example.com:443\n\n' }
  ]
  for (const { name, status, head } of cases) {
    test(`${name}: a 200 MiB upload gets its answer and the server reads at most the linger bound`, async (t) => {
      const app = await startApp(t)
      const reads = serverReads(app)
      const upload = await hostileUpload(app, head(app, await app.key({ plan: 'enterprise', perMinute: 1000, perDay: 1000 })), 200 * MiB)
      assert.match(upload.head, new RegExp(`^http/1.1 ${status} `))
      assert.match(upload.head, /\r\nconnection: close/)
      if (status !== 200) assert.equal((JSON.parse(upload.body) as { status: number }).status, status)
      await assertReadBounded(reads, name)
    })
  }

  test('rate limited (429): the upload gets its answer and the server reads at most the linger bound', async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    assert.equal((await app.fetch('/v1/pets', { key })).status, 200)
    const reads = serverReads(app)
    const upload = await hostileUpload(
      app,
      `POST /v1/pets HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\nContent-Type: application/json\n`,
      200 * MiB
    )
    assert.match(upload.head, /^http\/1.1 429 /)
    await assertReadBounded(reads, 'a rate-limited upload')
  })

  test('node:http clients sending 1 MiB and 8 MiB bodies receive their 413 every time (20 + 20)', async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 1000, perDay: 1000 })
    const outcomes: string[] = []
    for (const size of [1 * MiB, 8 * MiB]) for (let i = 0; i < 20; i++) outcomes.push(await nodeHttpPost(app, key, size))
    assert.deepEqual(
      outcomes,
      Array.from({ length: 40 }, () => '413')
    )
  })

  test('fetch clients sending 1 MiB and 8 MiB bodies receive their 413 every time (10 + 10)', async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 1000, perDay: 1000 })
    const outcomes: string[] = []
    for (const size of [1 * MiB, 8 * MiB]) {
      for (let i = 0; i < 10; i++) {
        try {
          const response = await app.fetch('/v1/pets', {
            key,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: Buffer.alloc(size, 0x20)
          })
          await response.arrayBuffer()
          outcomes.push(String(response.status))
        } catch (error) {
          outcomes.push(String((error as { cause?: { code?: string } }).cause?.code ?? error))
        }
      }
    }
    assert.deepEqual(
      outcomes,
      Array.from({ length: 20 }, () => '413')
    )
  })
})

describe("what Node's parser would answer bare gets an Error body", { concurrency: true }, () => {
  const cases: Array<{ name: string; bytes: string; code: string; status: number }> = [
    { name: 'a malformed request line', bytes: 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n', code: 'bad_request', status: 400 },
    { name: 'a missing Host', bytes: 'GET /healthz HTTP/1.1\r\n\r\n', code: 'bad_request', status: 400 },
    {
      name: 'Expect other than 100-continue',
      bytes: 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n',
      code: 'expectation_failed',
      status: 417
    },
    {
      name: 'headers too large',
      bytes: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      code: 'header_fields_too_large',
      status: 431
    },
    { name: 'CONNECT', bytes: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', code: 'bad_request', status: 400 },
    {
      name: 'Content-Length and Transfer-Encoding both',
      bytes: 'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      code: 'bad_request',
      status: 400
    }
  ]
  for (const { name, bytes, code, status } of cases) {
    test(`${name}: ${status} ${code}`, async (t) => {
      const app = await startApp(t)
      const answer = await rawExchange(app, bytes)
      assertErrorAnswer(answer, code)
      assert.equal(answer?.status, status)
    })
  }

  test('an upgrade request is served as an ordinary request', async (t) => {
    const app = await startApp(t)
    const answer = await rawExchange(app, 'GET /healthz HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n')
    assert.equal(answer?.status, 200)
    assert.deepEqual(JSON.parse(answer.body), { status: 'ok' })
  })

  test('bad bytes pipelined behind a create: the create gets its own answer, which closes the connection', async (t) => {
    const app = await startApp(t)
    const key = await app.key()
    const body = '{"name":"Rex","categoryId":1}'
    const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const answer = await rawExchange(app, `${head}${body}GARBAGE GARBAGE\r\n\r\n`)
    assert.equal(answer?.status, 201, 'the create is answered as a create, not with the 400 of the bytes behind it')
    assert.equal(answer.headers.get('connection'), 'close')
  })

  test('an HTTP/1.0 request needs no Host', async (t) => {
    const app = await startApp(t)
    const answer = await rawExchange(app, 'GET /healthz HTTP/1.0\r\n\r\n')
    assert.equal(answer?.status, 200)
  })
})

describe('no secret in any log', () => {
  /** The service's log lines of the requests whose X-Request-Id was one of `ids`. */
  const logLinesOf = (ids: string[]) =>
    readFileSync(`${LOG_DIR}service-${process.pid}.ndjson`, 'utf8')
      .split('\n')
      .filter((line) => ids.some((id) => line.includes(id)))

  test('a key in the path, the query or X-Request-Id, raw or percent-encoded in any case, is never logged', async (t) => {
    const app = await startApp(t)
    const key = await app.key()
    const secret = key.slice('as_live_'.length)
    const encodedAll = [...key].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')
    const encodedSecret = encodedAll.slice('as_live_'.length * 3)
    // An operator token has the same shape under its own prefix.
    const token = `as_admin_${secret.split('').reverse().join('')}`
    const paths = [
      `/v1/pets/${key}`,
      `/v1/pets?api_key=${key}`,
      `/v1/pets?${key}`,
      `/v1/pets?key=${key.replace(/_/g, '%5f')}`,
      `/v1/pets?key=${key.replace(/_/g, '%5F').toUpperCase()}`,
      `/v1/pets?key=${encodedAll}`,
      `/v1/pets?key=${encodedAll.toUpperCase()}`,
      `/v1/pets?key=${key.replace(/_/g, '%255f')}`,
      `/healthz?token=Bearer%20${key}`,
      `/nothing/${key}`,
      // The secret without its prefix: bare, encoded, after "Bearer ", as a path segment.
      `/v1/pets?key=${secret}`,
      `/v1/pets?${secret}`,
      `/v1/pets?key=${encodedSecret}`,
      `/v1/pets?key=${encodedSecret.toUpperCase()}`,
      `/healthz?authorization=Bearer+${secret}`,
      `/healthz?authorization=Bearer%20${secret}`,
      `/v1/pets/${secret}`,
      `/nothing/x.${secret}`,
      `/admin/v1/keys?token=${token}`,
      `/admin/v1/keys?token=${token.toUpperCase()}`,
      `/admin/v1/keys/${token.replace(/_/g, '%5F')}`,
      // A secret pasted with a stray character is no longer 43 long: masked by its prefix alone.
      `/v1/pets?key=${key}0`,
      `/v1/pets?token=AS_ADMIN_${secret}0`,
      // Cut short: still masked by its prefix.
      `/v1/pets?key=${key.slice(0, 30)}`,
      `/v1/pets?token=As_Admin_${secret.slice(0, 22)}`
    ]
    const ids: string[] = []
    for (const path of paths) {
      const response = await app.fetch(path, { key: null })
      await response.arrayBuffer()
      ids.push(response.headers.get('x-request-id') ?? '')
    }
    // Key-shaped request ids, in any case, are replaced, never echoed.
    const shaped = [key, key.toUpperCase(), `As_Live_${secret}`, `req.${key}`, secret, `req-${secret}`, secret.toLowerCase(), token]
    shaped.push(token.toUpperCase(), `As_Admin_${secret}`, `AS_LIVE_${secret}0`, `as_Admin_${secret}0`, 'As_Live_guess', 'aS_aDmIn_guess')
    for (const sent of shaped) {
      const echoed = await app.fetch('/healthz', { key: null, headers: { 'x-request-id': sent } })
      const id = echoed.headers.get('x-request-id') ?? ''
      assert.match(id, /^[0-9a-f-]{36}$/, `a key-shaped request id (${sent.slice(0, 12)}...) is replaced by one of ours`)
      ids.push(id)
    }
    const lines = logLinesOf(ids)
    assert.equal(lines.length, paths.length + shaped.length, 'every request was logged, once')
    const reversed = secret.split('').reverse().join('')
    for (const line of lines) {
      const decoded = decodeURIComponent(decodeURIComponent(line.replace(/%(?![0-9a-f]{2})/gi, '%25'))).toLowerCase()
      for (const part of [secret, reversed, secret.slice(0, 22)])
        assert.ok(!decoded.includes(part.toLowerCase()), `a secret in the log: ${line}`)
      assert.ok(!line.toLowerCase().includes(encodedSecret.toLowerCase()), `an encoded secret in the log: ${line}`)
    }
  })

  test('ordinary request ids are echoed and logged: UUIDs, ULIDs, req-..., long hex, 42 or 44 letters and digits', async (t) => {
    const app = await startApp(t)
    const ordinary = [
      '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'req-1729.abc_DEF',
      'a'.repeat(64).replace(/a/g, (_, i: number) => '0123456789abcdef'[i % 16]!),
      'A1'.repeat(21),
      'A1'.repeat(22),
      'as_lively-request'
    ]
    for (const sent of ordinary) {
      const response = await app.fetch('/healthz', { key: null, headers: { 'x-request-id': sent } })
      assert.equal(response.headers.get('x-request-id'), sent)
    }
    assert.equal(logLinesOf(ordinary.map((id) => `"reqId":"${id}"`)).length, ordinary.length)
  })
})

describe('bodies: encodings, exact numbers, exact strings', { concurrency: true }, () => {
  test('a body with a Content-Encoding other than identity is 415 with Accept-Encoding, never parsed as plain', async (t) => {
    const app = await startApp(t)
    for (const encoding of ['gzip', 'deflate', 'br', 'x-unknown', 'gzip, identity']) {
      const response = await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 }, { headers: { 'content-encoding': encoding } })
      assert.equal(response.headers.get('accept-encoding'), 'identity')
      await assertError(response, 'unsupported_media_type', 'Content-Encoding')
    }
    const bomb = gzipSync(Buffer.alloc(10 * MiB, 0x20))
    const refused = await app.fetch('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb
    })
    await assertError(refused, 'unsupported_media_type')
    const plain = await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 }, { headers: { 'content-encoding': 'identity' } })
    assert.equal(plain.status, 201)
    assert.deepEqual(await (await app.fetch('/v1/pets')).json().then((pets) => (pets as unknown[]).length), 1, 'nothing else was created')
  })

  test('integers are judged by their exact decimal value: fractions and non-plain notations are refused alike', async (t) => {
    const app = await startApp(t)
    for (const literal of [
      '0.99999999999999999',
      '4503599627370496.5',
      '1.0',
      '1e2',
      '1E2',
      '9223372036854775807.0',
      '100e-2',
      '1e-400',
      '1.5',
      '1e400'
    ]) {
      await assertError(
        await postJson(app, '/v1/pets', `{"name":"n","categoryId":${literal}}`),
        'validation_failed',
        'categoryId must be an integer from 1 to 9223372036854775807, written as plain digits'
      )
    }
    for (const limit of ['1.0', '1e2', '0.99999999999999999', '5.5']) {
      await assertError(await app.fetch(`/v1/pets?limit=${limit}`), 'validation_failed', 'limit must be a plain decimal integer')
    }
    for (const petId of ['1.0', '1e0', '9223372036854775807.0']) await assertError(await app.fetch(`/v1/pets/${petId}`), 'not_found')
    const exact = await postJson(app, '/v1/pets', '{"name":"n","categoryId":9223372036854775807}')
    assert.equal(exact.status, 201)
    assert.match(await exact.text(), /"categoryId":9223372036854775807[,}]/)
  })

  test('invalid UTF-16 (a lone surrogate escape) and invalid UTF-8 are refused, never replaced', async (t) => {
    const app = await startApp(t)
    for (const name of ['\\ud800', 'a\\udfffb', '\\udc00\\ud800', 'x\\uD83D']) {
      await assertError(
        await postJson(app, '/v1/pets', `{"name":"${name}","categoryId":1}`),
        'validation_failed',
        'name must be valid Unicode'
      )
    }
    await assertError(await postJson(app, '/v1/pets', '{"name":"n","categoryId":1,"\\ud800":1}'), 'validation_failed', 'property name')
    const pair = await postJson(app, '/v1/pets', '{"name":"\\ud83d\\ude00","categoryId":1}')
    assert.equal(pair.status, 201, 'a surrogate pair is one character')
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","categoryId":1}')])
    await assertError(
      await app.fetch('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes }),
      'bad_request',
      'not valid UTF-8'
    )
  })

  test('a name of only Unicode White_Space or U+FEFF is blank', async (t) => {
    const app = await startApp(t)
    for (const name of ['\u0085', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u1680\u2000\u200a\u202f\u205f', ' \u0085\t']) {
      await assertError(await postJson(app, '/v1/pets', { name, categoryId: 1 }), 'validation_failed', 'not only white space')
    }
    for (const name of ['\u200b', 'a\u0085']) assert.equal((await postJson(app, '/v1/pets', { name, categoryId: 1 })).status, 201)
  })
})

describe('one rule for methods and queries', { concurrency: true }, () => {
  test('every known path outside /v1 answers another method with 405 and Allow', async (t) => {
    const app = await startApp(t)
    for (const [method, path] of [
      ['POST', '/healthz'],
      ['PUT', '/readyz'],
      ['DELETE', '/metrics'],
      ['POST', '/docs'],
      ['POST', '/docs/swagger-ui.css'],
      ['POST', '/v1/openapi.json'],
      ['PATCH', '/v1/openapi.json']
    ] as const) {
      const response = await app.fetch(path, { method, key: null })
      assert.equal(response.headers.get('allow'), 'GET, HEAD, OPTIONS', `${method} ${path}`)
      await assertError(response, 'method_not_allowed', `${method} is not allowed here`)
    }
    await assertError(await app.fetch('/docs/no-such-file.js', { key: null }), 'not_found')
  })

  test('OPTIONS is answered with Allow on every known path, 404 elsewhere', async (t) => {
    const app = await startApp(t)
    for (const [path, allow] of [
      ['/v1/pets', 'GET, HEAD, POST, OPTIONS'],
      ['/v1/pets/1', 'GET, HEAD, OPTIONS'],
      ['/v1/openapi.json', 'GET, HEAD, OPTIONS'],
      ['/healthz', 'GET, HEAD, OPTIONS'],
      ['/docs', 'GET, HEAD, OPTIONS']
    ] as const) {
      const response = await app.fetch(path, { method: 'OPTIONS', key: null })
      assert.equal(response.status, 204, path)
      assert.equal(response.headers.get('allow'), allow, path)
      assert.equal(await response.text(), '')
    }
    await assertError(await app.fetch('/nowhere', { method: 'OPTIONS', key: null }), 'not_found')
  })

  test('unknown query parameters are refused in the same words by every operation', async (t) => {
    const app = await startApp(t)
    const created = (await (await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 1 })).json()) as { id: number }
    await assertError(
      await app.fetch('/v1/pets?color=red'),
      'validation_failed',
      'unknown query parameter "color": allowed are limit, status, cursor'
    )
    await assertError(
      await app.fetch(`/v1/pets/${created.id}?color=red`),
      'validation_failed',
      'unknown query parameter "color": this operation takes no query parameters'
    )
    for (const query of ['?=', '?=x', '?&=']) {
      const body = await assertError(await app.fetch(`/v1/pets${query}`), 'validation_failed', 'a query parameter has no name')
      assert.doesNotMatch(body.message, /schema|false|boolean|instance/)
    }
    assert.equal((await app.fetch(`/v1/pets/${created.id}`)).status, 200)
  })

  test('a bare query parameter is the same as an empty one', async (t) => {
    const app = await startApp(t)
    for (const name of ['limit', 'status', 'cursor']) {
      const bare = await app.fetch(`/v1/pets?${name}`)
      const empty = await app.fetch(`/v1/pets?${name}=`)
      assert.equal(bare.status, empty.status, name)
      assert.deepEqual(await bare.json(), await empty.json(), name)
    }
  })
})

describe('metrics without key ids', () => {
  test('bans are counted by plan: no key id in /metrics and no series per key', async (t) => {
    const app = await startApp(t)
    const ids: string[] = []
    for (let k = 0; k < 5; k++) {
      const { key, id } = await app.keyWithId({ plan: 'enterprise', perMinute: 1, perDay: 100 })
      ids.push(id)
      let last = 0
      for (let i = 0; i < 6 && last !== 429; i++) {
        const response = await app.fetch('/v1/pets', { key })
        await response.arrayBuffer()
        if (
          response.status === 429 &&
          ((await (await app.fetch('/v1/pets', { key })).json()) as { code: string }).code === 'api_key_banned'
        )
          last = 429
      }
    }
    const metrics = await (await app.fetch('/metrics', { key: null })).text()
    assert.match(metrics, /^rate_limit_bans_active\{plan="enterprise"\} 5$/m)
    for (const id of ids) assert.ok(!metrics.includes(id), `key id ${id} in /metrics`)
    assert.doesNotMatch(metrics, /key_id/)
  })
})
