import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import {
  clockOffset,
  CLIENT_KIND,
  SERVER_KIND,
  STATUS_ERROR,
  STATUS_UNSET,
  type FinishedSpan,
  type SpanEncoding
} from '../../src/tracing/finished-span.ts'
import { JsonSpans } from '../../src/tracing/otlp-json.ts'
import { ProtobufSpans } from '../../src/tracing/otlp-protobuf.ts'
import { newSpanId, newTraceId } from '../../src/tracing/span-ids.ts'

const SOURCE = { serviceName: 'animal-store', version: '1.2.3' }
// What the serializer reads of a resource: its attributes.
const resource = {
  attributes: { 'service.name': SOURCE.serviceName, 'service.version': SOURCE.version }
} as unknown as ReadableSpan['resource']
const scope = { name: 'animal-store', version: SOURCE.version }

/** The SDK's own conversion of a recorded time: timeOrigin and the corrected time as separate [s, ns]. */
function sdkTime(at: number, offset: number): HrTime {
  const toHr = (ms: number): HrTime => [Math.trunc(ms / 1e3), Math.round((ms % 1e3) * 1e6)]
  const [a, b] = [toHr(performance.timeOrigin), toHr(at + offset)]
  const out: HrTime = [a[0] + b[0], a[1] + b[1]]
  if (out[1] >= 1e9) {
    out[1] -= 1e9
    out[0] += 1
  }
  return out
}

/** The span as the SDK would hand it to its exporter. */
function readable(span: FinishedSpan, offset: number): ReadableSpan {
  const context: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED }
  if (span.traceState !== undefined) context.traceState = { serialize: () => span.traceState! } as SpanContext['traceState']
  const start = sdkTime(span.startedAt, offset)
  const end = sdkTime(span.endedAt, offset)
  return {
    name: span.name,
    kind: span.kind - 1,
    spanContext: () => context,
    parentSpanContext:
      span.parentSpanId === undefined
        ? undefined
        : { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: span.remoteParent },
    startTime: start,
    endTime: end,
    status: { code: span.status, message: span.statusMessage },
    attributes: span.attributes,
    links: [],
    events: [],
    duration: [end[0] - start[0], end[1] - start[1]],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0
  }
}

function spans(): FinishedSpan[] {
  const traceId = newTraceId()
  const server = newSpanId()
  const now = performance.now()
  return [
    {
      traceId,
      spanId: server,
      parentSpanId: undefined,
      traceState: undefined,
      remoteParent: false,
      name: 'GET /v1/pets/:petId',
      kind: SERVER_KIND,
      startedAt: now - 3.25,
      endedAt: now,
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/v1/pets/7',
        'url.scheme': 'http',
        'http.response.status_code': 200,
        'http.route': '/v1/pets/:petId'
      },
      status: STATUS_UNSET,
      statusMessage: undefined
    },
    {
      traceId,
      spanId: newSpanId(),
      parentSpanId: server,
      traceState: 'vendor=opaque,other=1',
      remoteParent: false,
      name: 'INSERT pets',
      kind: CLIENT_KIND,
      startedAt: now - 2.000001,
      endedAt: now - 0.5,
      attributes: { 'db.system.name': 'postgresql', flag: true, ratio: 0.25, negative: -3, big: 2 ** 40 },
      status: STATUS_ERROR,
      statusMessage: 'ConnectionError'
    },
    {
      traceId: newTraceId(),
      spanId: newSpanId(),
      parentSpanId: newSpanId(),
      traceState: 'a=b',
      remoteParent: true,
      // Past 127 bytes and not ASCII: lengths take two bytes, strings are UTF-8.
      name: `POST /v1/pets ${'é'.repeat(80)}`,
      kind: SERVER_KIND,
      startedAt: now - 1000.123456,
      endedAt: now - 999,
      attributes: { 'url.path': `/v1/${'x'.repeat(300)}`, 'http.response.status_code': 503 },
      status: STATUS_ERROR,
      statusMessage: undefined
    }
  ]
}

function encode(encoding: SpanEncoding, finished: FinishedSpan[], offset: number): Uint8Array {
  for (const span of finished) encoding.append(span, offset)
  assert.equal(encoding.size, finished.length)
  const body = encoding.take()
  assert.equal(encoding.size, 0)
  return body
}

describe('OTLP encodings', () => {
  test('protobuf: the same bytes as the SDK serializer writes for the same spans, batch after batch', () => {
    const encoding = new ProtobufSpans(SOURCE)
    for (let batch = 0; batch < 3; batch++) {
      const finished = spans()
      const offset = clockOffset()
      const ours = Buffer.from(encode(encoding, finished, offset))
      const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(finished.map((span) => readable(span, offset)))!)
      assert.equal(ours.toString('hex'), sdk.toString('hex'))
    }
  })

  test('protobuf: a batch past the starting buffer (thousands of spans) is whole', () => {
    const encoding = new ProtobufSpans(SOURCE)
    const finished = Array.from({ length: 700 }, spans).flat()
    const offset = clockOffset()
    const ours = Buffer.from(encode(encoding, finished, offset))
    assert.ok(ours.length > 64 * 1024)
    const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(finished.map((span) => readable(span, offset)))!)
    assert.ok(ours.equals(sdk))
  })

  test('json: the same document as the SDK serializer makes of the same spans', () => {
    const encoding = new JsonSpans(SOURCE)
    const finished = spans()
    const offset = clockOffset()
    const ours = JSON.parse(Buffer.from(encode(encoding, finished, offset)).toString('utf8')) as unknown
    const sdk = JSON.parse(
      Buffer.from(JsonTraceSerializer.serializeRequest(finished.map((span) => readable(span, offset)))!).toString('utf8')
    ) as unknown
    assert.deepEqual(ours, sdk)
    assert.equal(encoding.take().length > 0, true, 'an empty batch is still a well-formed request')
  })
})
