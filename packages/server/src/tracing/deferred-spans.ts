import type { SpanAttributes } from '../base/tracing.ts'
import { clockOffset, CLIENT_KIND, SERVER_KIND, STATUS_ERROR, STATUS_UNSET, type FinishedSpan } from './finished-span.ts'
import { newSpanId } from './span-ids.ts'

/** A storage call made inside a sampled request: its times and outcome, made a span later. */
export interface RecordedCall {
  readonly name: string
  readonly attributes: SpanAttributes
  readonly startedAt: number
  /** -1 while open. */
  endedAt: number
  /** The error's name when the call failed. */
  failure: string | undefined
  /** The sampled request it was made in. */
  readonly request: RecordedRequest
}

/** The caller's span a request continues, from its `traceparent` (and `tracestate`). */
export interface CallerSpan {
  readonly spanId: string
  readonly traceState: string | undefined
}

/**
 * A sampled request as recorded on its way: plain fields written by the request path, made into
 * spans by DeferredSpans. Times are `performance.now()` milliseconds.
 */
export interface RecordedRequest {
  readonly traceId: string
  /** Undefined for a root request. */
  readonly caller: CallerSpan | undefined
  readonly method: string
  readonly attributes: SpanAttributes
  readonly startedAt: number
  /** -1 while open. */
  endedAt: number
  route: string | undefined
  status: number
  /** Calls that ended while the request was open; later ones are made spans on their own. */
  readonly calls: RecordedCall[]
  /** Its server span's id, once made: the parent of a call that ends after it. */
  spanId: string | undefined
}

/** Where finished spans go: the batcher (SpanExport), with the turn's clock correction. */
export interface SpanSink {
  add(span: FinishedSpan, clockOffset: number): void
}

/**
 * Makes the spans of the requests that ended in a turn of the event loop together, once the turn
 * is done: on its way a request only writes down what its spans will say, with their start and
 * end times. Made one at a time between requests, a span cost several times more at a low
 * sampling ratio (rarely run code stays in V8's slower tiers, and the caches go cold in between).
 */
export class DeferredSpans {
  private ended: Array<RecordedRequest | RecordedCall> = []
  private scheduled = false
  private readonly sink: SpanSink

  constructor(sink: SpanSink) {
    this.sink = sink
  }

  /** A request has ended: its spans are made once this turn is done. */
  requestEnded(request: RecordedRequest): void {
    this.add(request)
  }

  /** A call has ended: kept with its request while that is open, else made a span on its own once this turn is done. */
  callEnded(call: RecordedCall): void {
    if (call.request.endedAt < 0) call.request.calls.push(call)
    else this.add(call)
  }

  /** Makes every span ended so far. */
  flush(): void {
    this.scheduled = false
    const ended = this.ended
    this.ended = []
    const offset = clockOffset()
    for (const recorded of ended) {
      if ('calls' in recorded) this.requestSpans(recorded, offset)
      // Its request ended before it, so was made in this batch or an earlier one.
      else this.callSpan(recorded, recorded.request.spanId!, offset)
    }
  }

  private add(recorded: RecordedRequest | RecordedCall): void {
    this.ended.push(recorded)
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  private requestSpans(request: RecordedRequest, offset: number): void {
    const { method, route, status, caller } = request
    const attributes: SpanAttributes = { ...request.attributes, 'http.response.status_code': status }
    if (route !== undefined) attributes['http.route'] = route
    const spanId = newSpanId()
    request.spanId = spanId
    this.sink.add(
      {
        traceId: request.traceId,
        spanId,
        parentSpanId: caller?.spanId,
        traceState: caller?.traceState,
        remoteParent: caller !== undefined,
        name: route === undefined ? method : `${method} ${route}`,
        kind: SERVER_KIND,
        startedAt: request.startedAt,
        endedAt: request.endedAt,
        attributes,
        status: status >= 500 ? STATUS_ERROR : STATUS_UNSET,
        statusMessage: undefined
      },
      offset
    )
    for (const call of request.calls) this.callSpan(call, spanId, offset)
  }

  private callSpan(call: RecordedCall, parentSpanId: string, offset: number): void {
    this.sink.add(
      {
        traceId: call.request.traceId,
        spanId: newSpanId(),
        parentSpanId,
        traceState: call.request.caller?.traceState,
        remoteParent: false,
        name: call.name,
        kind: CLIENT_KIND,
        startedAt: call.startedAt,
        endedAt: call.endedAt,
        attributes: call.attributes,
        status: call.failure === undefined ? STATUS_UNSET : STATUS_ERROR,
        statusMessage: call.failure
      },
      offset
    )
  }
}
