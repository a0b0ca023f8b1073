import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { ERROR_CODES } from '@animal-store/contract'
import { startApp, type TestApp } from '../helpers/app.ts'

const RUNS = Number(process.env.HOSTILE_FUZZ_RUNS ?? 5000)
const SEED = Number(process.env.HOSTILE_FUZZ_SEED ?? 20261125)
const PARALLEL = 24

/** Writes raw bytes, half-closes, and collects everything the server sends until it closes. */
function exchange(app: TestApp, bytes: Buffer): Promise<Buffer> {
  const { port } = new URL(app.origin)
  return new Promise((resolve) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(Buffer.concat(chunks)))
    socket.end(bytes)
  })
}

interface Answer {
  status: number
  headers: Map<string, string>
  body: string
}

/** The answers in what the server sent, read by Content-Length (a HEAD answer has no body). */
function answersIn(data: Buffer, head: boolean): Answer[] {
  const answers: Answer[] = []
  let rest = data
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) break
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n')
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
    const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine)?.[1] ?? Number.NaN)
    const length = head || status === 204 || status === 304 ? 0 : Number(headers.get('content-length') ?? 0)
    answers.push({ status, headers, body: rest.subarray(end + 4, end + 4 + length).toString('utf8') })
    rest = rest.subarray(end + 4 + length)
  }
  return answers
}

// The parts of a request where parsers break, mixed with ordinary values so that many get far.
const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE', 'PRI', 'get', 'P OST', 'BREW', ''),
  fc.string({ maxLength: 12 })
)
const target = fc.oneof(
  fc.constantFrom(
    '/v1/pets',
    '/v1/pets',
    '/v1/pets/1',
    '/v1/pets?limit=5',
    '/v1/pets?=',
    '/v1/pets?limit=1.0',
    '/v1/pets/%ZZ',
    '/healthz',
    '/metrics',
    '/docs',
    '/v1/openapi.json',
    '*',
    'http://x/v1/pets',
    'example.com:443',
    '/v1/pets#frag',
    '//v1//pets',
    `/v1/pets?${'a'.repeat(20_000)}`
  ),
  fc.string({ maxLength: 40 }).map((s) => `/v1/pets/${s}`),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/${s}`)
)
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/1', 'http/1.1', '')
const header = fc.oneof(
  fc.constantFrom(
    'Host: x',
    'Host: x',
    'Host:',
    'Host: a b',
    'Content-Type: application/json',
    'Content-Type: application/json',
    'Content-Type: text/plain',
    'Content-Type: application/json; charset=latin1',
    'Content-Length: 0',
    'Content-Length: 5',
    'Content-Length: -1',
    'Content-Length: 99999999999999999999',
    'Content-Length: 1e3',
    'Content-Length: 20000',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: gzip, chunked',
    'Transfer-Encoding: identity',
    'Content-Encoding: gzip',
    'Content-Encoding: identity',
    'Expect: 100-continue',
    'Expect: foo',
    'Connection: close',
    'Connection: upgrade',
    'Upgrade: websocket',
    'Upgrade: h2c',
    'Authorization: Bearer KEY',
    'Authorization: Bearer KEY',
    'Authorization: Bearer as_live_AAAA',
    'Authorization: Basic Zm9vOmJhcg==',
    'X-Request-Id: abc',
    'X-Forwarded-For: 1.2.3.4',
    ' folded: value',
    'No-Colon',
    ': empty-name',
    `X-Big: ${'b'.repeat(17_000)}`
  ),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 30 })).map(([n, v]) => `${n}: ${v}`)
)
const body = fc.oneof(
  fc.constantFrom(
    '',
    '{"name":"Rex","categoryId":1}',
    '{"name":"Rex","categoryId":1.0}',
    '{"name":"\\ud800","categoryId":1}',
    '{"name":"\u0085","categoryId":1}',
    '5\r\nhello\r\n0\r\n\r\n',
    '0\r\n\r\n',
    'zz\r\nhello\r\n',
    'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
  ),
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 3 })
)
const request = fc.record({
  method,
  target,
  version,
  headers: fc.array(header, { maxLength: 8 }),
  body,
  newline: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n', '\r')
})

describe('fuzz: hostile request lines, headers and bodies over raw sockets', () => {
  test(`${RUNS} seeded raw requests: never a 5xx, every error an Error body, RSS bounded, healthy after`, async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 10_000_000, perDay: 10_000_000 })
    const cases = fc.sample(request, { numRuns: RUNS, seed: SEED })
    const rssBefore = process.memoryUsage().rss
    let answered = 0
    const unanswered: string[] = []
    for (let start = 0; start < cases.length; start += PARALLEL) {
      await Promise.all(
        cases.slice(start, start + PARALLEL).map(async (r, offset) => {
          const { newline } = r
          const lines = [`${r.method} ${r.target} ${r.version}`, ...r.headers.map((h) => h.replace('KEY', key))]
          const bytes = Buffer.from(`${lines.join(newline)}${newline}${newline}${r.body}`, 'utf8')
          const data = await exchange(app, bytes)
          // An interim 100 Continue is Node's, before the request is seen.
          const answers = answersIn(data, r.method === 'HEAD').filter((a) => a.status !== 100)
          const what = `case ${start + offset} (seed ${SEED}): ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`
          // Every case starts a request, and every request is answered: a malformed one, and one
          // cut short by the client's end of input (RFC 9112 section 8 allows a bare close there),
          // get an Error body. Bytes after a request framed without a body are a next request,
          // answered in turn, unless an answer before said Connection: close.
          if (answers.length === 0) unanswered.push(what)
          for (const [i, answer] of answers.entries()) {
            answered++
            if (i < answers.length - 1)
              assert.notEqual(answer.headers.get('connection'), 'close', `an answer after Connection: close for ${what}`)
            assert.ok(answer.status < 500, `${answer.status} for ${what}`)
            assert.ok(answer.headers.get('x-request-id') !== undefined, `X-Request-Id for ${what}`)
            if (answer.status >= 400 && r.method !== 'HEAD') {
              const error = JSON.parse(answer.body) as { code: string; status: number; message: string }
              assert.ok(ERROR_CODES.includes(error.code as never), `documented code ${error.code} for ${what}`)
              assert.equal(error.status, answer.status, what)
              assert.ok(error.message.length > 0)
            }
          }
        })
      )
    }
    const grownMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024
    t.diagnostic(`${RUNS} raw requests, ${answered} answers, RSS grew ${grownMb.toFixed(1)} MB`)
    assert.deepEqual(unanswered.slice(0, 3), [], `${unanswered.length} of ${RUNS} requests got no answer before the connection closed`)
    assert.ok(answered >= RUNS, `${answered} answers to ${RUNS} requests`)
    assert.ok(grownMb < 100, `RSS grew ${grownMb.toFixed(1)} MB`)
    assert.equal((await app.fetch('/healthz', { key: null })).status, 200, 'still healthy')
    assert.equal((await app.fetch('/v1/pets')).status, 200)
  })
})
