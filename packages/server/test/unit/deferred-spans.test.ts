import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { DeferredSpans, type CallerSpan, type RecordedCall, type RecordedRequest } from '../../src/tracing/deferred-spans.ts'
import { clockOffset, CLIENT_KIND, SERVER_KIND, STATUS_ERROR, STATUS_UNSET, type FinishedSpan } from '../../src/tracing/finished-span.ts'
import { newTraceId } from '../../src/tracing/span-ids.ts'

function setup() {
  const finished: FinishedSpan[] = []
  const offsets: number[] = []
  const spans = new DeferredSpans({
    add: (span, offset) => {
      finished.push(span)
      offsets.push(offset)
    }
  })
  return { finished, offsets, spans }
}

function request(traceId: string, caller?: CallerSpan): RecordedRequest {
  return {
    traceId,
    caller,
    method: 'GET',
    attributes: { 'http.request.method': 'GET', 'url.path': '/v1/pets/1', 'url.scheme': 'http' },
    startedAt: performance.now(),
    endedAt: -1,
    route: undefined,
    status: 0,
    calls: [],
    spanId: undefined
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

describe('DeferredSpans', () => {
  test('makes a request and its calls spans at the flush, with the recorded times, ids and attributes', async () => {
    const { finished, offsets, spans } = setup()
    const traceId = newTraceId()
    const recorded = request(traceId)
    await sleep(2)
    const read = call(recorded)
    await sleep(2)
    read.endedAt = performance.now()
    spans.callEnded(read)
    await sleep(2)
    end(recorded, '/v1/pets/:petId', 200)
    spans.requestEnded(recorded)
    assert.equal(finished.length, 0, 'nothing made on the request path')

    spans.flush()
    assert.equal(finished.length, 2)
    const server = finished.find((s) => s.kind === SERVER_KIND)!
    const client = finished.find((s) => s.kind === CLIENT_KIND)!
    assert.equal(server.name, 'GET /v1/pets/:petId')
    assert.equal(server.traceId, traceId, 'the trace id the sampling was decided by')
    assert.match(server.spanId, /^[0-9a-f]{16}$/)
    assert.equal(server.parentSpanId, undefined)
    assert.equal(server.remoteParent, false)
    assert.deepEqual(server.attributes, {
      'http.request.method': 'GET',
      'url.path': '/v1/pets/1',
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'http.route': '/v1/pets/:petId'
    })
    assert.equal(server.status, STATUS_UNSET)
    assert.equal(client.name, 'SELECT pets')
    assert.equal(client.traceId, traceId)
    assert.equal(client.parentSpanId, server.spanId)
    assert.notEqual(client.spanId, server.spanId)
    // The recorded times, not the flush's; the clock correction of the flush's turn (a few ms at most).
    assert.deepEqual([server.startedAt, server.endedAt], [recorded.startedAt, recorded.endedAt])
    assert.deepEqual([client.startedAt, client.endedAt], [read.startedAt, read.endedAt])
    assert.ok(server.startedAt < client.startedAt && client.endedAt < server.endedAt, 'the call lies inside its request')
    assert.ok(
      offsets.every((offset) => offset === offsets[0] && Math.abs(offset - clockOffset()) < 5),
      `offsets ${offsets.join()}`
    )
  })

  test('makes them on its own once the turn is done: none on the request path', async () => {
    const { finished, spans } = setup()
    for (let i = 0; i < 3; i++) {
      const recorded = request(newTraceId())
      end(recorded, i === 0 ? undefined : '/v1/pets', 404)
      spans.requestEnded(recorded)
      assert.equal(finished.length, 0, 'nothing made on the request path')
    }
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(finished.length, 3, 'all made together')
    assert.equal(finished[0]!.name, 'GET', 'an unmatched request is named by its method alone')
    assert.equal(finished[0]!.attributes['http.route'], undefined)
  })

  test('a call that outlives its request is made its child, before or after the request was made', () => {
    const { finished, spans } = setup()
    const recorded = request(newTraceId())
    const first = call(recorded, 'INSERT pets')
    const second = call(recorded, 'CLAIM idempotency_keys')
    end(recorded, '/v1/pets', 503)
    spans.requestEnded(recorded)
    first.endedAt = performance.now()
    spans.callEnded(first) // after the request ended, before its spans were made
    spans.flush()
    second.endedAt = performance.now()
    second.failure = 'TimeoutError'
    spans.callEnded(second) // after its request's span was made
    spans.flush()

    assert.equal(finished.length, 3)
    const server = finished.find((s) => s.kind === SERVER_KIND)!
    assert.equal(server.status, STATUS_ERROR, 'a 5xx is an error')
    assert.equal(server.statusMessage, undefined)
    for (const name of ['INSERT pets', 'CLAIM idempotency_keys']) {
      const child = finished.find((s) => s.name === name)
      assert.equal(child?.parentSpanId, server.spanId, name)
      assert.equal(child?.traceId, server.traceId, name)
    }
    const failed = finished.find((s) => s.name === 'CLAIM idempotency_keys')!
    assert.deepEqual([failed.status, failed.statusMessage], [STATUS_ERROR, 'TimeoutError'])
    assert.deepEqual(finished.find((s) => s.name === 'INSERT pets')!.status, STATUS_UNSET)
  })

  test("continues a caller's trace: its trace id, its span as a remote parent, its tracestate on every span", () => {
    const { finished, spans } = setup()
    const traceId = 'a'.repeat(32)
    const recorded = request(traceId, { spanId: 'b'.repeat(16), traceState: 'vendor=1' })
    const read = call(recorded)
    read.endedAt = performance.now()
    spans.callEnded(read)
    end(recorded, '/v1/pets', 200)
    spans.requestEnded(recorded)
    spans.flush()
    const [server, client] = finished
    assert.equal(server?.traceId, traceId)
    assert.equal(server?.parentSpanId, 'b'.repeat(16))
    assert.equal(server?.remoteParent, true)
    assert.equal(server?.traceState, 'vendor=1')
    assert.equal(client?.parentSpanId, server?.spanId)
    assert.equal(client?.remoteParent, false, 'its parent is ours')
    assert.equal(client?.traceState, 'vendor=1')
  })
})
