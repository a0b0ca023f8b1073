import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { SERVER_KIND, STATUS_UNSET, type FinishedSpan } from '../../src/tracing/finished-span.ts'
import { JsonSpans } from '../../src/tracing/otlp-json.ts'
import { SpanExport, type EncodedBatch } from '../../src/tracing/span-export.ts'
import { newSpanId, newTraceId } from '../../src/tracing/span-ids.ts'

const LIMITS = { maxQueueSize: 8, maxExportBatchSize: 4, scheduledDelayMillis: 60_000, exportTimeoutMillis: 60_000 }
const SUCCESS: ExportResult = { code: ExportResultCode.SUCCESS }

function span(name: string): FinishedSpan {
  const at = performance.now()
  return {
    traceId: newTraceId(),
    spanId: newSpanId(),
    parentSpanId: undefined,
    traceState: undefined,
    remoteParent: false,
    name,
    kind: SERVER_KIND,
    startedAt: at,
    endedAt: at,
    attributes: {},
    status: STATUS_UNSET,
    statusMessage: undefined
  }
}

/** The span names in an export's body, as its receiver would read them. */
function names(batch: EncodedBatch): string[] {
  const body = JSON.parse(Buffer.from(batch.body).toString('utf8')) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }>
  }
  return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)))
}

/** A sender whose exports finish when the test says so. */
function heldSender() {
  const sent: EncodedBatch[] = []
  const pending: Array<(result: ExportResult) => void> = []
  const send = (batch: EncodedBatch) =>
    new Promise<ExportResult>((resolve) => {
      sent.push(batch)
      pending.push(resolve)
    })
  const finishOne = async (result = SUCCESS) => {
    pending.shift()!(result)
    await sleep(1)
  }
  return { sent, pending, send, finishOne }
}

const source = { serviceName: 'test', version: '1' }

describe('SpanExport', () => {
  test('sends a batch once it is full, one export at a time, in order', async () => {
    const sender = heldSender()
    const exported = new SpanExport(new JsonSpans(source), sender.send, LIMITS)
    for (let i = 0; i < 8; i++) exported.add(span(`s${i}`), 0)
    await sleep(1)
    assert.equal(sender.sent.length, 1, 'the second batch waits for the first')
    assert.deepEqual(names(sender.sent[0]!), ['s0', 's1', 's2', 's3'])
    assert.equal(sender.sent[0]!.spans, 4)
    await sender.finishOne()
    assert.equal(sender.sent.length, 2)
    assert.deepEqual(names(sender.sent[1]!), ['s4', 's5', 's6', 's7'])
    await sender.finishOne()
    assert.equal(exported.dropped, 0)
  })

  test('drops spans past the queue bound while exports are slow, and counts them', async () => {
    const sender = heldSender()
    const exported = new SpanExport(new JsonSpans(source), sender.send, LIMITS)
    for (let i = 0; i < 20; i++) exported.add(span(`s${i}`), 0)
    assert.equal(exported.dropped, 12, 'eight wait: one batch sending, one queued')
    await sender.finishOne()
    await sender.finishOne()
    exported.add(span('after'), 0)
    const flushed = exported.flush()
    await sleep(1)
    await sender.finishOne()
    await flushed
    assert.deepEqual(sender.sent.map(names), [['s0', 's1', 's2', 's3'], ['s4', 's5', 's6', 's7'], ['after']], 'room again once sent')
  })

  test('sends a batch that is not full after the scheduled delay', async () => {
    const sent: EncodedBatch[] = []
    const exported = new SpanExport(new JsonSpans(source), async (batch) => (sent.push(batch), SUCCESS), {
      ...LIMITS,
      scheduledDelayMillis: 30
    })
    exported.add(span('alone'), 0)
    await sleep(5)
    assert.equal(sent.length, 0)
    await sleep(100)
    assert.deepEqual(sent.map(names), [['alone']])
  })

  test('gives up on an export that fails or never answers, and goes on with the next', async () => {
    const sent: string[][] = []
    let call = 0
    const send = (batch: EncodedBatch) => {
      sent.push(names(batch))
      call++
      if (call === 1) return Promise.reject(new Error('connection refused'))
      if (call === 2) return new Promise<ExportResult>(() => {})
      return Promise.resolve(SUCCESS)
    }
    const exported = new SpanExport(new JsonSpans(source), send, { ...LIMITS, maxQueueSize: 100, exportTimeoutMillis: 30 })
    for (let i = 0; i < 12; i++) exported.add(span(`s${i}`), 0)
    await exported.flush()
    assert.deepEqual(sent, [
      ['s0', 's1', 's2', 's3'],
      ['s4', 's5', 's6', 's7'],
      ['s8', 's9', 's10', 's11']
    ])
  })

  test('flush sends what is open and waits for every export; with nothing added, sends nothing', async () => {
    const sender = heldSender()
    const exported = new SpanExport(new JsonSpans(source), sender.send, LIMITS)
    await exported.flush()
    assert.equal(sender.sent.length, 0)
    for (let i = 0; i < 6; i++) exported.add(span(`s${i}`), 0)
    let done = false
    const flushed = exported.flush().then(() => (done = true))
    await sleep(1)
    assert.equal(done, false, 'waits for the exports in flight')
    await sender.finishOne()
    await sender.finishOne()
    await flushed
    assert.deepEqual(sender.sent.map(names), [
      ['s0', 's1', 's2', 's3'],
      ['s4', 's5']
    ])
  })
})
