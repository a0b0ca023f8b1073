import { AsyncLocalStorage } from 'node:async_hooks'
import { ROOT_CONTEXT, SpanKind, trace, type Context, type Span, type SpanContext, type TextMapGetter } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOnSampler, BatchSpanProcessor, SamplingDecision, TracerProvider } from '@opentelemetry/sdk-trace'
import { andThen } from '../base/maybe.ts'
import type { RequestHeaders, RequestSpan, ServerRequestInfo, SpanAttributes, Tracing, TracingConfig } from '../base/tracing.ts'
import { DeferredSpans, type RecordedCall, type RecordedRequest } from './deferred-spans.ts'
import { DecidedIds, rootDecision, samplerOf } from './otel-sampling.ts'

const HEADERS: TextMapGetter<RequestHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key]
}

// What the configured samplers are shown of a request before its span exists: they decide by trace id and parent alone.
const NO_ATTRIBUTES = {}
const NO_LINKS: [] = []

/** A request the sampler took: recorded as it goes, its spans built later by DeferredSpans. */
class SampledRequest implements RequestSpan, RecordedRequest {
  readonly traceId: string
  readonly parent: Context
  readonly method: string
  readonly attributes: SpanAttributes
  readonly startedAt = performance.now()
  endedAt = -1
  route: string | undefined = undefined
  status = 0
  readonly calls: RecordedCall[] = []
  built: Span | undefined = undefined
  private readonly spans: DeferredSpans
  private readonly active: AsyncLocalStorage<SampledRequest>

  constructor(traceId: string, parent: Context, info: ServerRequestInfo, spans: DeferredSpans, active: AsyncLocalStorage<SampledRequest>) {
    this.traceId = traceId
    this.parent = parent
    this.method = info.method
    // Only what the HTTP conventions require; no header value (Authorization least of all) goes in.
    this.attributes = { 'http.request.method': info.method, 'url.path': info.path, 'url.scheme': info.scheme }
    this.spans = spans
    this.active = active
  }

  run(work: () => void): void {
    this.active.run(this, work)
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

/** OpenTelemetry tracing exported over OTLP/HTTP (protobuf or JSON) in batches. */
export function createOtelTracing(config: TracingConfig, version: string): Tracing {
  const propagator = new W3CTraceContextPropagator()
  const exporterConfig = { url: config.endpoint, headers: config.headers }
  const exporter = config.protocol === 'http/json' ? new JsonExporter(exporterConfig) : new ProtobufExporter(exporterConfig)
  // The configured sampler decides each request once, before any span exists (see startRequest);
  // the provider then records what it is given, the children of a recorded request included.
  const sampler = samplerOf(config.sampler)
  const ids = new DecidedIds()
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: new AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor({ exporter })]
  })
  const tracer = provider.getTracer('animal-store', version)
  // A request without a traceparent is a root: decided without the propagator or a span context.
  const decideRoot = rootDecision(config.sampler, ids)
  const spans = new DeferredSpans(tracer, ids)
  const active = new AsyncLocalStorage<SampledRequest>()
  const start = (parent: Context, traceId: string, info: ServerRequestInfo) => new SampledRequest(traceId, parent, info, spans, active)

  return {
    startRequest(headers, request, describe) {
      if (headers.traceparent === undefined) {
        const traceId = decideRoot()
        return traceId === undefined ? undefined : start(ROOT_CONTEXT, traceId, describe(request))
      }
      const parent = propagator.extract(ROOT_CONTEXT, headers, HEADERS)
      const caller: SpanContext | undefined = trace.getSpanContext(parent)
      const traceId = caller?.traceId ?? ids.random.generateTraceId()
      const { decision } = sampler.shouldSample(parent, traceId, '', SpanKind.SERVER, NO_ATTRIBUTES, NO_LINKS)
      if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return caller === undefined ? undefined : new CallerTrace(caller.traceId)
      return start(parent, traceId, describe(request))
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
    async close() {
      spans.flush()
      await provider.shutdown()
    }
  }
}
