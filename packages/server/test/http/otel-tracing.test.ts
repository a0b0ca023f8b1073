import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, test, type TestContext } from 'node:test'
import { loadConfig } from '../../src/config.ts'
import { postJson, startApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'
import { LOG_DIR } from '../helpers/logs.ts'

interface Export {
  contentType: string
  body: Buffer
}

/**
 * A real OTLP/HTTP receiver on a free port: keeps every export it is sent and answers success,
 * after answering the first `unavailable` exports 503 (a collector restarting).
 */
async function otlpReceiver(t: TestContext, unavailable = 0): Promise<{ endpoint: string; exports: Export[] }> {
  const exports: Export[] = []
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        exports.push({ contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) })
      }
      if (exports.length <= unavailable) return void response.writeHead(503).end()
      const json = (request.headers['content-type'] ?? '').includes('json')
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports }
}

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: number | string } }>
}

function spansOf(exports: Export[]): OtlpSpan[] {
  return exports.flatMap((e) => {
    const body = JSON.parse(e.body.toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
    return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
  })
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue))
}

const SERVER = 2
const backends = await suiteBackends()

describe('OpenTelemetry tracing', () => {
  test('is off without an OTLP endpoint: no tracing service, nothing registered', async (t) => {
    assert.equal(loadConfig({}).tracing, undefined)
    assert.equal(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing, undefined)
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      /http\/protobuf or http\/json/
    )
    const app = await startApp(t)
    assert.equal(app.services.tracing, undefined)
  })

  for (const { backend, skip } of backends) {
    test(
      `[${backend.name}] continues a traceparent: server span named by route, status, child spans for the storage calls that wait; no secret (http/json)`,
      { skip },
      async (t) => {
        const receiver = await otlpReceiver(t)
        const app = await startApp(t, {
          backend,
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'animal-store-test'
          }
        })
        const key = await app.key({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
        const created = await postJson(app, '/v1/pets', '{"name":"Max","categoryId":9223372036854775807}', { key })
        assert.equal(created.status, 201)
        const { id } = (await created.json()) as { id: number }

        const traceId = randomBytes(16).toString('hex')
        const parentId = randomBytes(8).toString('hex')
        const requestId = `trace-test-${randomBytes(6).toString('hex')}`
        const got = await app.fetch(`/v1/pets/${id}`, {
          key,
          headers: { traceparent: `00-${traceId}-${parentId}-01`, 'x-request-id': requestId }
        })
        assert.equal(got.status, 200)
        await app.close() // flushes the batch to the receiver

        const spans = spansOf(receiver.exports)
        assert.ok(receiver.exports.every((e) => e.contentType.startsWith('application/json')))
        const server = spans.find((s) => s.traceId === traceId && s.kind === SERVER)
        assert.ok(server, `a server span in the caller's trace: ${JSON.stringify(spans.map((s) => [s.name, s.traceId]))}`)
        assert.equal(server.parentSpanId, parentId)
        assert.equal(server.name, 'GET /v1/pets/:petId')
        assert.equal(attribute(server, 'http.route'), '/v1/pets/:petId')
        assert.equal(attribute(server, 'http.request.method'), 'GET')
        assert.equal(attribute(server, 'url.path'), `/v1/pets/${id}`)
        assert.equal(attribute(server, 'url.scheme'), 'http')
        assert.equal(attribute(server, 'http.response.status_code'), 200)
        const children = spans.filter((s) => s.traceId === traceId && s.parentSpanId === server.spanId)
        const read = children.find((s) => s.name === 'SELECT pets')
        if (backend.name === 'sqlite') {
          // An in-process read that does not wait gets no span of its own: the server span covers it.
          assert.deepEqual(children, [], `no child span for SQLite's read: ${JSON.stringify(children.map((s) => s.name))}`)
        } else {
          assert.ok(read, `a child span for the storage read: ${JSON.stringify(children.map((s) => s.name))}`)
          assert.equal(attribute(read, 'db.system.name'), 'postgresql')
        }
        const create = spans.find((s) => s.kind === SERVER && s.name === 'POST /v1/pets')
        assert.ok(create)
        const insert = spans.find((s) => s.parentSpanId === create.spanId && s.name === 'INSERT pets')
        assert.ok(insert, 'a child span for the create, which waits for its commit')
        assert.equal(attribute(insert, 'db.system.name'), backend.name === 'sqlite' ? 'sqlite' : 'postgresql')
        // Spans are built after the request from the times it recorded: the call lies inside its request.
        const [start, end] = [BigInt(create.startTimeUnixNano), BigInt(create.endTimeUnixNano)]
        assert.ok(start > 0n && start <= BigInt(insert.startTimeUnixNano), 'the call starts inside the request')
        assert.ok(BigInt(insert.startTimeUnixNano) < BigInt(insert.endTimeUnixNano) && BigInt(insert.endTimeUnixNano) <= end)
        if (backend.name !== 'sqlite')
          assert.ok(
            spans.some((s) => s.parentSpanId === create.spanId && s.name === 'EVALSHA rate-limit'),
            'a Redis child span'
          )

        const exported = Buffer.concat(receiver.exports.map((e) => e.body)).toString('utf8')
        assert.ok(!exported.includes(key) && !exported.includes(key.slice(8, 20)), 'no API key in the exported data')
        assert.doesNotMatch(exported, /bearer|authorization/i)

        const logLine = readFileSync(`${LOG_DIR}service-${process.pid}.ndjson`, 'utf8')
          .split('\n')
          .filter((line) => line.includes(requestId) && line.includes('"msg":"request"'))
        assert.equal(logLine.length, 1, 'one request log line')
        assert.equal((JSON.parse(logLine[0]!) as { trace_id?: string }).trace_id, traceId)
      }
    )
  }

  test('a request the sampler leaves out exports nothing and is served as usual (OTEL_TRACES_SAMPLER=always_off)', async (t) => {
    const receiver = await otlpReceiver(t)
    const app = await startApp(t, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_off' }
    })
    assert.equal((await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 7 })).status, 201)
    assert.equal((await app.fetch('/v1/pets?limit=1')).status, 200)
    await app.close()
    assert.deepEqual(spansOf(receiver.exports), [])
  })

  test("parentbased samplers follow the caller's decision; a request left out logs only a caller's trace id", async (t) => {
    const receiver = await otlpReceiver(t)
    const app = await startApp(t, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_off'
      }
    })
    const run = randomBytes(4).toString('hex')
    const traced = randomBytes(16).toString('hex')
    const declined = randomBytes(16).toString('hex')
    const send = async (name: string, traceparent?: string) => {
      const headers: Record<string, string> = { 'x-request-id': `pb-${name}-${run}` }
      if (traceparent !== undefined) headers.traceparent = traceparent
      assert.equal((await app.fetch('/v1/pets?limit=1', { headers })).status, 200)
    }
    await send('sampled', `00-${traced}-${randomBytes(8).toString('hex')}-01`)
    await send('declined', `00-${declined}-${randomBytes(8).toString('hex')}-00`)
    await send('root')
    await app.close()

    assert.deepEqual(
      spansOf(receiver.exports)
        .filter((s) => s.kind === SERVER)
        .map((s) => s.traceId),
      [traced]
    )
    const lines = readFileSync(`${LOG_DIR}service-${process.pid}.ndjson`, 'utf8')
      .split('\n')
      .filter((line) => line.includes(run) && line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as { reqId: string; trace_id?: string })
    const traceOf = (name: string) => lines.find((l) => l.reqId === `pb-${name}-${run}`)?.trace_id
    assert.equal(lines.length, 3)
    assert.equal(traceOf('sampled'), traced)
    assert.equal(traceOf('declined'), declined)
    assert.equal(traceOf('root'), undefined)
  })

  test('a ratio sampler exports the requests whose trace id it chose, with that id', async (t) => {
    const receiver = await otlpReceiver(t)
    const app = await startApp(t, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.5'
      }
    })
    for (let i = 0; i < 60; i++) assert.equal((await app.fetch('/v1/pets?limit=1')).status, 200)
    await app.close()
    // The SDK's TraceIdRatioBasedSampler: the trace id's four 32-bit words xor-ed, below ratio × 2³².
    const chosen = (traceId: string) =>
      [0, 8, 16, 24].reduce((sum, at) => (sum ^ Number.parseInt(traceId.slice(at, at + 8), 16)) >>> 0, 0) < Math.floor(0.5 * 0xffffffff)
    const servers = spansOf(receiver.exports).filter((s) => s.kind === SERVER)
    assert.ok(servers.length >= 10 && servers.length <= 50, `about half of 60 requests sampled: ${servers.length}`)
    assert.ok(
      servers.every((s) => chosen(s.traceId)),
      'every exported trace id is one the ratio takes'
    )
  })

  test('masks a key-shaped path segment in url.path as the log masks it', async (t) => {
    const receiver = await otlpReceiver(t)
    const app = await startApp(t, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on' }
    })
    const alnum = (n: number) =>
      randomBytes(n * 2)
        .toString('base64')
        .replace(/[^0-9a-z]/gi, '')
        .slice(0, n)
    const secrets = [`as_live_${alnum(43)}`, alnum(43)]
    for (const secret of secrets) await app.fetch(`/v1/pets/${secret}?limit=1`)
    await app.close()

    const paths = spansOf(receiver.exports)
      .filter((s) => s.kind === SERVER)
      .map((s) => attribute(s, 'url.path'))
    assert.deepEqual(paths, ['/v1/pets/[redacted]', '/v1/pets/[redacted]'])
    const exported = Buffer.concat(receiver.exports.map((e) => e.body)).toString('utf8')
    for (const secret of secrets) assert.ok(!exported.includes(secret.slice(-20)), 'no part of the key-shaped segment is exported')
  })

  test('exports over http/protobuf too', async (t) => {
    const receiver = await otlpReceiver(t)
    const app = await startApp(t, {
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }
    })
    const traceId = randomBytes(16).toString('hex')
    assert.equal(
      (await app.fetch('/v1/pets?limit=1', { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } })).status,
      200
    )
    await app.close()
    assert.ok(receiver.exports.length > 0)
    assert.ok(receiver.exports.every((e) => e.contentType === 'application/x-protobuf'))
    const body = Buffer.concat(receiver.exports.map((e) => e.body))
    assert.ok(body.includes(Buffer.from(traceId, 'hex')), 'the caller trace id, as protobuf bytes')
    assert.ok(body.includes(Buffer.from('GET /v1/pets')), 'the span named by route')
  })

  test('a collector answering 503 gets the same batch again; requests are served meanwhile', async (t) => {
    const receiver = await otlpReceiver(t, 1)
    const app = await startApp(t, {
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`, OTEL_TRACES_SAMPLER: 'always_on' }
    })
    const traceIds = Array.from({ length: 3 }, () => randomBytes(16).toString('hex'))
    for (const traceId of traceIds) {
      const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`
      assert.equal((await app.fetch('/v1/pets?limit=1', { headers: { traceparent } })).status, 200)
    }
    await app.close()
    assert.equal(receiver.exports.length, 2, 'refused once, then delivered')
    assert.ok(receiver.exports[0]!.body.equals(receiver.exports[1]!.body), 'the retry sends the same bytes')
    for (const traceId of traceIds) assert.ok(receiver.exports[1]!.body.includes(Buffer.from(traceId, 'hex')))
  })
})
