import assert from 'node:assert/strict'
import { Agent, METHODS, request } from 'node:http'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { ERROR_CODES, ERROR_STATUS } from '@animal-store/contract'
import { startApp } from '../helpers/app.ts'

interface Sent {
  method: string
  path: string
  headers: Record<string, string | string[]>
  body: string | undefined
}
interface Received {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 5000)

function send(origin: string, agent: Agent, sent: Sent): Promise<Received> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: sent.method, path: sent.path, headers: sent.headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    if (sent.body !== undefined) req.write(sent.body)
    req.end()
  })
}

// Junk aimed at the places parsers break: numbers, nesting, unicode, prototype keys.
const hugeNumber = fc.constantFrom(
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '1e309',
  '-0',
  '0.0000001',
  '1E+2',
  '123456789012345678901234567890',
  '9007199254740993',
  '1.7976931348623157e308'
)
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\u0000',
    '\uD800',
    '\uFFFF',
    '😀'.repeat(300),
    ' \t\n',
    '__proto__',
    'constructor',
    '%00',
    '<script>',
    "'; DROP TABLE pets; --"
  )
)
const petLike = fc
  .record(
    {
      name: fc.oneof(weirdString, fc.integer(), fc.constant(null), fc.array(fc.string())),
      categoryId: fc.oneof(
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
        hugeNumber,
        fc.constant('"7"'),
        fc.constant('null'),
        fc
          .double()
          .map(String)
          .filter((s) => /^-?\d/.test(s)),
        fc.constant('[]'),
        fc.constant('{}')
      ),
      status: fc.oneof(fc.constantFrom('available', 'pending', 'sold', 'lost', '', 'AVAILABLE'), weirdString),
      extra: fc.option(fc.constantFrom('id', 'tags', '__proto__', 'constructor'))
    },
    { requiredKeys: [] }
  )
  .map((p) => {
    const parts: string[] = []
    if (p.name !== undefined) parts.push(`"name":${JSON.stringify(p.name)}`)
    if (p.categoryId !== undefined) parts.push(`"categoryId":${p.categoryId}`)
    if (p.status !== undefined) parts.push(`"status":${JSON.stringify(p.status)}`)
    if (p.extra !== undefined && p.extra !== null) parts.push(`${JSON.stringify(p.extra)}:1`)
    return `{${parts.join(',')}}`
  })
const deepNesting = fc.integer({ min: 1, max: 4000 }).map((depth) => `{"name":${'['.repeat(depth)}${']'.repeat(depth)},"categoryId":1}`)
const body = fc.oneof(
  petLike,
  fc.json(),
  deepNesting,
  fc.string(),
  fc.constantFrom(
    '',
    '{',
    '{"name":"a","categoryId":1',
    'null',
    '[]',
    '"x"',
    '{"name":"a","categoryId":1}{}',
    '\uFEFF{"name":"a","categoryId":1}'
  ),
  fc.integer({ min: 16_000, max: 40_000 }).map((n) => `{"name":"${'x'.repeat(n)}","categoryId":1}`)
)
const path = fc.oneof(
  fc.constantFrom(
    '/v1/pets',
    '/v1/pets/1',
    '/v1/pets/',
    '/v1/pets/%00',
    '/v1/../x',
    '/v1/pets/..%2f..%2fetc',
    '/v1//pets',
    '/V1/PETS',
    '/v1/pets?limit=',
    '/v1/pets?limit=1&limit=2',
    '/v1/pets?cursor=%ZZ',
    '/v1/pets/%zz',
    '/v1/pets/-1',
    '/v1/pets/9223372036854775808',
    '/v1/store/orders',
    '/v1',
    '/',
    '/docs',
    '/metrics',
    '/v1/openapi.json',
    `/v1/pets/${'9'.repeat(5000)}`,
    `/v1/${'a/'.repeat(3000)}`
  ),
  fc.string().map((s) => `/v1/pets/${encodeURIComponent(s)}`),
  fc
    .record({ limit: fc.string(), status: fc.string(), cursor: fc.string() }, { requiredKeys: [] })
    .map((q) => `/v1/pets?${new URLSearchParams(q as Record<string, string>).toString()}`)
)
const method = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'BREW')
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/jsonx',
  '',
  'application/json, text/plain',
  '*/*'
)

describe('fuzz: every bad input gets a clean answer', () => {
  test(`${RUNS} generated requests: never a 5xx, always an Error body with a documented code, rate-limit headers on /v1`, async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 10_000_000, perDay: 10_000_000 })
    const agent = new Agent({ keepAlive: true, maxSockets: 8 })
    t.after(() => agent.destroy())
    const auth = fc.oneof(
      fc.constant(`Bearer ${key}`),
      fc.constant(`Bearer ${key}`),
      fc.constant(`bearer ${key}`),
      fc.constant(undefined),
      fc.string().map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}`),
      fc.constant('Basic Zm9vOmJhcg=='),
      fc.constant(null).map(() => [`Bearer ${key}`, 'Bearer other'])
    )
    const requests = fc.record({
      method,
      path,
      auth,
      contentType,
      body: fc.option(body, { freq: 4 }),
      requestId: fc.option(fc.string().map((s) => s.replace(/[^\x21-\x7e]/g, 'x') || 'x'))
    })
    let count = 0
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        count++
        const headers: Record<string, string | string[]> = {}
        if (r.auth !== undefined) headers.authorization = r.auth
        if (r.contentType !== '') headers['content-type'] = r.contentType
        if (r.requestId !== null) headers['x-request-id'] = r.requestId
        const hasBody = r.body !== null && r.method !== 'GET' && r.method !== 'HEAD'
        // Most bodies carry Content-Length; some go chunked, as streaming clients send them.
        if (hasBody && r.body!.length % 5 !== 0) headers['content-length'] = String(Buffer.byteLength(r.body!))
        const received = await send(app.origin, agent, { method: r.method, path: r.path, headers, body: hasBody ? r.body! : undefined })
        assert.ok(received.status < 500, `5xx for ${r.method} ${r.path.slice(0, 80)}: ${received.status} ${received.body.slice(0, 200)}`)
        if (received.status >= 400 && r.method !== 'HEAD') {
          const error = JSON.parse(received.body) as { code: string; status: number; message: string }
          assert.ok(ERROR_CODES.includes(error.code as never), `documented code: ${error.code}`)
          assert.equal(error.status, received.status)
          assert.equal(ERROR_STATUS[error.code as keyof typeof ERROR_STATUS], received.status)
          assert.ok(typeof error.message === 'string' && error.message.length > 0)
        }
        // What Node's HTTP parser refuses (an unknown method, a chunked TRACE) never becomes a request:
        // it gets an Error body from the socket-level handler, but no route and so no rate-limit headers.
        const parserRefusal = !METHODS.includes(r.method) || (received.status === 400 && received.body.includes('not valid HTTP/1.1'))
        if ((r.path.startsWith('/v1/') || r.path === '/v1') && !parserRefusal) {
          for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
            assert.ok(received.headers[name] !== undefined, `${name} on ${r.method} ${r.path.slice(0, 60)} (${received.status})`)
          }
        }
        assert.ok(received.headers['x-request-id'] !== undefined)
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123) }
    )
    assert.equal(count, RUNS)
    assert.equal((await app.fetch('/healthz', { key: null })).status, 200, 'still healthy')
    assert.equal((await app.fetch('/readyz', { key: null })).status, 200)
    const pets = await app.fetch('/v1/pets?limit=100')
    assert.equal(pets.status, 200)
    for (const pet of (await pets.json()) as Array<{ name: string; categoryId: number; status: string }>) {
      assert.ok(pet.name.trim().length > 0 && ['available', 'pending', 'sold'].includes(pet.status), 'only valid pets were stored')
    }
  })
})
