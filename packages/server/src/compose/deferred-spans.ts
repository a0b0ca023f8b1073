import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api'
import type { SpanAttributes } from '../base/tracing.ts'
import type { DecidedIds } from './otel-sampling.ts'

/** A storage call made inside a sampled request: its times and outcome, made into an SDK span later. */
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

/**
 * A sampled request as recorded on its way: plain fields written by the request path, made into
 * SDK spans by DeferredSpans. Times are `performance.now()` milliseconds, as the SDK takes them.
 */
export interface RecordedRequest {
  readonly traceId: string
  /** ROOT_CONTEXT, or the caller's context extracted from its traceparent. */
  readonly parent: Context
  readonly method: string
  readonly attributes: SpanAttributes
  readonly startedAt: number
  /** -1 while open. */
  endedAt: number
  route: string | undefined
  status: number
  /** Calls that ended while the request was open; later ones are built on their own. */
  readonly calls: RecordedCall[]
  /** Its server span, once built: the parent of a call that ends after it. */
  built: Span | undefined
}

/**
 * Builds the SDK spans of the requests that ended in a turn of the event loop together, once the
 * turn is done: on its way a request only writes down what its spans will say, with their start
 * and end times. Built one at a time between requests, a span cost several times more at a low
 * sampling ratio (rarely run code stays in V8's slower tiers, and the caches go cold in between).
 */
export class DeferredSpans {
  private ended: Array<RecordedRequest | RecordedCall> = []
  private scheduled = false
  private readonly tracer: Tracer
  private readonly ids: DecidedIds

  constructor(tracer: Tracer, ids: DecidedIds) {
    this.tracer = tracer
    this.ids = ids
  }

  /** A request has ended: its spans are built once this turn is done. */
  requestEnded(request: RecordedRequest): void {
    this.add(request)
  }

  /** A call has ended: kept with its request while that is open, else built on its own once this turn is done. */
  callEnded(call: RecordedCall): void {
    if (call.request.endedAt < 0) call.request.calls.push(call)
    else this.add(call)
  }

  /** Builds every span ended so far. */
  flush(): void {
    this.scheduled = false
    const ended = this.ended
    this.ended = []
    for (const recorded of ended) {
      if ('calls' in recorded) this.buildRequest(recorded)
      // Its request ended before it, so was built in this batch or an earlier one.
      else this.buildCall(recorded, trace.setSpan(ROOT_CONTEXT, recorded.request.built!))
    }
  }

  private add(recorded: RecordedRequest | RecordedCall): void {
    this.ended.push(recorded)
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  private buildRequest(request: RecordedRequest): void {
    const { method, route, status } = request
    const attributes: SpanAttributes = { ...request.attributes, 'http.response.status_code': status }
    if (route !== undefined) attributes['http.route'] = route
    const name = route === undefined ? method : `${method} ${route}`
    // A root takes the trace id its sampling was decided by; a caller's trace keeps the caller's.
    this.ids.decided = request.traceId
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, startTime: request.startedAt }, request.parent)
    this.ids.decided = undefined
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end(request.endedAt)
    request.built = span
    if (request.calls.length === 0) return
    const context = trace.setSpan(ROOT_CONTEXT, span)
    for (const call of request.calls) this.buildCall(call, context)
  }

  private buildCall(call: RecordedCall, parent: Context): void {
    const span = this.tracer.startSpan(call.name, { kind: SpanKind.CLIENT, attributes: call.attributes, startTime: call.startedAt }, parent)
    if (call.failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: call.failure })
    span.end(call.endedAt)
  }
}
