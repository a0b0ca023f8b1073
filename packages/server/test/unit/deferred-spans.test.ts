import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api'
import { hrTimeToMilliseconds } from '@opentelemetry/core'
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace'
import { DeferredSpans, type RecordedCall, type RecordedRequest } from '../../src/compose/deferred-spans.ts'
import { DecidedIds } from '../../src/compose/otel-sampling.ts'

function setup() {
  const exporter = new InMemorySpanExporter()
  const ids = new DecidedIds()
  const provider = new TracerProvider({
    sampler: new AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor({ exporter })]
  })
  const spans = new DeferredSpans(provider.getTracer('test'), ids)
  return { exporter, spans, ids }
}

function request(traceId: string, parent = ROOT_CONTEXT): RecordedRequest {
  return {
    traceId,
    parent,
    method: 'GET',
    attributes: { 'http.request.method': 'GET', 'url.path': '/v1/pets/1', 'url.scheme': 'http' },
    startedAt: performance.now(),
    endedAt: -1,
    route: undefined,
    status: 0,
    calls: [],
    built: undefined
  }
}

function call(of: RecordedRequest, name = 'SELECT pets'): RecordedCall {
  return { name, attributes: { 'db.system.name': 'sqlite' }, startedAt: performance.now(), endedAt: -1, failure: undefined, request: of }
}

function end(recorded: RecordedRequest, route: string | undefined, status: number): void {
  recorded.endedAt = performance.now()
  recorded.route = route
  recorded.status = status
}

/** A span's start and end in epoch milliseconds. */
const epochMs = (span: ReadableSpan) => [hrTimeToMilliseconds(span.startTime), hrTimeToMilliseconds(span.endTime)]
const recordedMs = (at: number) => performance.timeOrigin + at

describe('DeferredSpans', () => {
  test('builds a request and its calls at the flush, with the recorded times, ids and attributes', async () => {
    const { exporter, spans, ids } = setup()
    const traceId = ids.random.generateTraceId()
    const recorded = request(traceId)
    await sleep(2)
    const read = call(recorded)
    await sleep(2)
    read.endedAt = performance.now()
    spans.callEnded(read)
    await sleep(2)
    end(recorded, '/v1/pets/:petId', 200)
    spans.requestEnded(recorded)
    assert.equal(exporter.getFinishedSpans().length, 0, 'nothing built on the request path')

    spans.flush()
    const finished = exporter.getFinishedSpans()
    assert.equal(finished.length, 2)
    const server = finished.find((s) => s.kind === SpanKind.SERVER)!
    const client = finished.find((s) => s.kind === SpanKind.CLIENT)!
    assert.equal(server.name, 'GET /v1/pets/:petId')
    assert.equal(server.spanContext().traceId, traceId, 'the trace id the sampling was decided by')
    assert.equal(server.parentSpanContext, undefined)
    assert.deepEqual(server.attributes, {
      'http.request.method': 'GET',
      'url.path': '/v1/pets/1',
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'http.route': '/v1/pets/:petId'
    })
    assert.equal(server.status.code, SpanStatusCode.UNSET)
    assert.equal(client.name, 'SELECT pets')
    assert.equal(client.spanContext().traceId, traceId)
    assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId)

    // Times are the recorded ones (the SDK corrects its clock by at most a few ms), not the flush's.
    const [serverStart, serverEnd] = epochMs(server)
    const [clientStart, clientEnd] = epochMs(client)
    assert.ok(Math.abs(serverStart! - recordedMs(recorded.startedAt)) < 5, `start ${serverStart} vs ${recordedMs(recorded.startedAt)}`)
    assert.ok(Math.abs(serverEnd! - recordedMs(recorded.endedAt)) < 5)
    assert.ok(serverStart! < clientStart! && clientEnd! < serverEnd!, 'the call lies inside its request')
    assert.ok(Math.abs(serverEnd! - serverStart! - (recorded.endedAt - recorded.startedAt)) < 0.01, 'the duration as recorded')
  })

  test('builds on its own once the turn is done: none on the request path', async () => {
    const { exporter, spans, ids } = setup()
    for (let i = 0; i < 3; i++) {
      const recorded = request(ids.random.generateTraceId())
      end(recorded, i === 0 ? undefined : '/v1/pets', 404)
      spans.requestEnded(recorded)
      assert.equal(exporter.getFinishedSpans().length, 0, 'nothing built on the request path')
    }
    await new Promise((resolve) => setImmediate(resolve))
    const finished = exporter.getFinishedSpans()
    assert.equal(finished.length, 3, 'all built together')
    assert.equal(finished[0]!.name, 'GET', 'an unmatched request is named by its method alone')
    assert.equal(finished[0]!.attributes['http.route'], undefined)
  })

  test('a call that outlives its request is built as its child, before or after the request was built', () => {
    const { exporter, spans, ids } = setup()
    const recorded = request(ids.random.generateTraceId())
    const first = call(recorded, 'INSERT pets')
    const second = call(recorded, 'CLAIM idempotency_keys')
    end(recorded, '/v1/pets', 503)
    spans.requestEnded(recorded)
    first.endedAt = performance.now()
    spans.callEnded(first) // after the request ended, before its batch was built
    spans.flush()
    second.endedAt = performance.now()
    second.failure = 'TimeoutError'
    spans.callEnded(second) // after its request's span was built
    spans.flush()

    const finished = exporter.getFinishedSpans()
    assert.equal(finished.length, 3)
    const server = finished.find((s) => s.kind === SpanKind.SERVER)!
    assert.equal(server.status.code, SpanStatusCode.ERROR, 'a 5xx is an error')
    for (const name of ['INSERT pets', 'CLAIM idempotency_keys']) {
      const child = finished.find((s) => s.name === name)
      assert.equal(child?.parentSpanContext?.spanId, server.spanContext().spanId, name)
    }
    const failed = finished.find((s) => s.name === 'CLAIM idempotency_keys')!
    assert.deepEqual(failed.status, { code: SpanStatusCode.ERROR, message: 'TimeoutError' })
  })

  test("continues a caller's trace: its trace id, the caller's span as parent", () => {
    const { exporter, spans } = setup()
    const caller = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED, isRemote: true }
    const recorded = request(caller.traceId, trace.setSpanContext(ROOT_CONTEXT, caller))
    end(recorded, '/v1/pets', 200)
    spans.requestEnded(recorded)
    spans.flush()
    const [server] = exporter.getFinishedSpans()
    assert.equal(server?.spanContext().traceId, caller.traceId)
    assert.equal(server?.parentSpanContext?.spanId, caller.spanId)
  })
})
