import { AsyncLocalStorage } from 'node:async_hooks'
import { ROOT_CONTEXT, SpanKind, trace, type SpanContext, type TextMapGetter } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { SamplingDecision } from '@opentelemetry/sdk-trace'
import { andThen } from '../base/maybe.ts'
import type { RequestHeaders, RequestSpan, ServerRequestInfo, SpanAttributes, Tracing, TracingConfig } from '../base/tracing.ts'
import { DeferredSpans, type CallerSpan, type RecordedCall, type RecordedRequest } from './deferred-spans.ts'
import { rootDecision, samplerOf } from './sampling.ts'
import { JsonSpans } from './otlp-json.ts'
import { ProtobufSpans } from './otlp-protobuf.ts'
import { otlpSender, SpanExport } from './span-export.ts'
import { newTraceId } from './span-ids.ts'
import type { ChildSpans } from './traced-stores.ts'

const HEADERS: TextMapGetter<RequestHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key]
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

// What the configured samplers are shown of a request before its span exists: they decide by trace id and parent alone.
const NO_ATTRIBUTES = {}
const NO_LINKS: [] = []

/** A request the sampler took: recorded as it goes, its spans built later by DeferredSpans. */
class SampledRequest implements RequestSpan, RecordedRequest {
  readonly traceId: string
  readonly caller: CallerSpan | undefined
  readonly method: string
  readonly attributes: SpanAttributes
  readonly startedAt = performance.now()
  endedAt = -1
  route: string | undefined = undefined
  status = 0
  readonly calls: RecordedCall[] = []
  spanId: string | undefined = undefined
  private readonly spans: DeferredSpans
  /** Undefined when no call it can make gets a span: it then runs in no context of its own. */
  private readonly active: AsyncLocalStorage<SampledRequest> | undefined

  constructor(
    traceId: string,
    caller: CallerSpan | undefined,
    info: ServerRequestInfo,
    spans: DeferredSpans,
    active: AsyncLocalStorage<SampledRequest> | undefined
  ) {
    this.traceId = traceId
    this.caller = caller
    this.method = info.method
    // Only what the HTTP conventions require; no header value (Authorization least of all) goes in.
    this.attributes = { 'http.request.method': info.method, 'url.path': info.path, 'url.scheme': info.scheme }
    this.spans = spans
    this.active = active
  }

  run(work: () => void): void {
    if (this.active === undefined) work()
    else this.active.run(this, work)
  }

  end(route: string | undefined, status: number): void {
    this.endedAt = performance.now()
    this.route = route
    this.status = status
    this.spans.requestEnded(this)
  }
}

/** A request left out that continues a caller's trace: only its trace id, for the log line. */
class CallerTrace implements RequestSpan {
  readonly traceId: string
  constructor(traceId: string) {
    this.traceId = traceId
  }
  run(work: () => void): void {
    work()
  }
  end(): void {}
}

/**
 * OpenTelemetry tracing exported over OTLP/HTTP (protobuf or JSON) in batches: W3C Trace Context
 * and the samplers are the SDK's; spans are recorded on the request path, made once the turn is
 * done (DeferredSpans), encoded into their batch as they are made and sent by the SDK's exporter.
 */
export function createOtelTracing(config: TracingConfig, version: string, childSpans: ChildSpans): Tracing {
  const propagator = new W3CTraceContextPropagator()
  const source = { serviceName: config.serviceName, version }
  const encoding = config.protocol === 'http/json' ? new JsonSpans(source) : new ProtobufSpans(source)
  const sender = otlpSender({ url: config.endpoint, headers: config.headers }, encoding.contentType)
  const exported = new SpanExport(encoding, sender.send)
  // The configured sampler decides each request once, before any span exists (see startRequest).
  const sampler = samplerOf(config.sampler)
  // A request without a traceparent is a root: decided without the propagator or a span context.
  const decideRoot = rootDecision(config.sampler)
  const spans = new DeferredSpans(exported)
  const active = new AsyncLocalStorage<SampledRequest>()
  // A context costs every callback the request schedules (each carries it): only for requests whose calls get spans.
  const contextFor = (method: string) => (childSpans === 'writes' && READS.has(method) ? undefined : active)
  const start = (traceId: string, caller: CallerSpan | undefined, info: ServerRequestInfo) =>
    new SampledRequest(traceId, caller, info, spans, contextFor(info.method))

  return {
    startRequest(headers, request, describe) {
      if (headers.traceparent === undefined) {
        const traceId = decideRoot()
        return traceId === undefined ? undefined : start(traceId, undefined, describe(request))
      }
      const parent = propagator.extract(ROOT_CONTEXT, headers, HEADERS)
      const caller: SpanContext | undefined = trace.getSpanContext(parent)
      const traceId = caller?.traceId ?? newTraceId()
      const { decision } = sampler.shouldSample(parent, traceId, '', SpanKind.SERVER, NO_ATTRIBUTES, NO_LINKS)
      if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return caller === undefined ? undefined : new CallerTrace(caller.traceId)
      const callerSpan = caller === undefined ? undefined : { spanId: caller.spanId, traceState: caller.traceState?.serialize() }
      return start(traceId, callerSpan, describe(request))
    },
    child(name, attributes: SpanAttributes, work) {
      // Only inside a sampled request: nothing recorded otherwise.
      const request = active.getStore()
      if (request === undefined) return work()
      const call: RecordedCall = { name, attributes, startedAt: performance.now(), endedAt: -1, failure: undefined, request }
      const finish = (failure: string | undefined) => {
        call.endedAt = performance.now()
        call.failure = failure
        spans.callEnded(call)
      }
      const fail = (error: unknown) => {
        finish(error instanceof Error ? error.name : 'error')
        throw error
      }
      try {
        return andThen(
          work(),
          (value) => {
            finish(undefined)
            return value
          },
          fail
        )
      } catch (error) {
        return fail(error)
      }
    },
    get droppedSpans() {
      return exported.dropped
    },
    async close() {
      spans.flush()
      await exported.flush()
      await sender.shutdown()
    }
  }
}
