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

/** A real OTLP/HTTP receiver on a free port: keeps every export it is sent and answers success. */
async function otlpReceiver(t: TestContext): Promise<{ endpoint: string; exports: Export[] }> {
  const exports: Export[] = []
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        exports.push({ contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) })
      }
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
      `[${backend.name}] continues a traceparent: server span named by route, status, storage child spans; no secret (http/json)`,
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
        assert.equal(attribute(server, 'http.response.status_code'), 200)
        const children = spans.filter((s) => s.traceId === traceId && s.parentSpanId === server.spanId)
        const read = children.find((s) => s.name === 'SELECT pets')
        assert.ok(read, `a child span for the storage read: ${JSON.stringify(children.map((s) => s.name))}`)
        assert.equal(attribute(read, 'db.system.name'), backend.name === 'sqlite' ? 'sqlite' : 'postgresql')
        const create = spans.find((s) => s.kind === SERVER && s.name === 'POST /v1/pets')
        assert.ok(create)
        assert.ok(spans.some((s) => s.parentSpanId === create.spanId && s.name === 'INSERT pets'))
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
})
