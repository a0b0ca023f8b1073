import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type TextMapGetter
} from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOnSampler, BatchSpanProcessor, SamplingDecision, TracerProvider } from '@opentelemetry/sdk-trace'
import { andThen } from '../base/maybe.ts'
import type { RequestHeaders, RequestSpan, ServerRequestInfo, SpanAttributes, Tracing, TracingConfig } from '../base/tracing.ts'
import { DecidedIds, rootDecision, samplerOf } from './otel-sampling.ts'

const HEADERS: TextMapGetter<RequestHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key]
}

// What the configured samplers are shown of a request before its span exists: they decide by trace id and parent alone.
const NO_ATTRIBUTES = {}
const NO_LINKS: [] = []

/** A request the sampler took: its SDK span, and the context its work runs in. */
class ServerSpan implements RequestSpan {
  readonly traceId: string
  private readonly span: Span
  private readonly context: Context
  private readonly method: string

  constructor(span: Span, parent: Context, method: string) {
    this.span = span
    this.context = trace.setSpan(parent, span)
    this.traceId = span.spanContext().traceId
    this.method = method
  }

  run(work: () => void): void {
    context.with(this.context, work)
  }

  end(route: string | undefined, status: number): void {
    const span = this.span
    if (route !== undefined) {
      span.updateName(`${this.method} ${route}`)
      span.setAttribute('http.route', route)
    }
    span.setAttribute('http.response.status_code', status)
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
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
  // One per process: a second app in the same process (tests) finds them in place.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
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
  const start = (parent: Context, traceId: string, info: ServerRequestInfo): RequestSpan => {
    // Only what the HTTP conventions require; no header value (Authorization least of all) goes in.
    const attributes = { 'http.request.method': info.method, 'url.path': info.path, 'url.scheme': info.scheme }
    ids.decided = traceId
    const span = tracer.startSpan(info.method, { kind: SpanKind.SERVER, attributes }, parent)
    ids.decided = undefined
    return new ServerSpan(span, parent, info.method)
  }

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
      // Only inside a recorded request: no span otherwise.
      if (trace.getSpan(context.active())?.isRecording() !== true) return work()
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes })
      const fail = (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' })
        span.end()
        throw error
      }
      // A storage call starts no span of its own: it runs in the request's context, not one made for its span.
      try {
        return andThen(
          work(),
          (value) => {
            span.end()
            return value
          },
          fail
        )
      } catch (error) {
        return fail(error)
      }
    },
    async close() {
      await provider.shutdown()
    }
  }
}
