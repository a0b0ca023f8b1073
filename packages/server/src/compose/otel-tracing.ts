import { context, SpanKind, SpanStatusCode, trace, type Context, type TextMapGetter } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler
} from '@opentelemetry/sdk-trace'
import { andThen } from '../base/maybe.ts'
import type { RequestSpan, ServerRequestInfo, SpanAttributes, Tracing, TracingConfig } from '../base/tracing.ts'

const HEADERS: TextMapGetter<ServerRequestInfo['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key]
}

function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler()
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root
}

/** OpenTelemetry tracing exported over OTLP/HTTP (protobuf or JSON) in batches. */
export function createOtelTracing(config: TracingConfig, version: string): Tracing {
  // One per process: a second app in the same process (tests) finds them in place.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  const propagator = new W3CTraceContextPropagator()
  const exporterConfig = { url: config.endpoint, headers: config.headers }
  const exporter = config.protocol === 'http/json' ? new JsonExporter(exporterConfig) : new ProtobufExporter(exporterConfig)
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: samplerOf(config.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter })]
  })
  const tracer = provider.getTracer('animal-store', version)

  return {
    startRequest(request, next) {
      const parent: Context = propagator.extract(context.active(), request.headers, HEADERS)
      // Only what the HTTP conventions name; no header value (Authorization least of all) goes in.
      const span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'url.path': request.path,
            'url.scheme': request.scheme,
            'server.address': request.serverAddress,
            'server.port': request.serverPort,
            'network.protocol.version': request.httpVersion
          }
        },
        parent
      )
      const route = (name: string | undefined, status: number) => {
        if (name !== undefined) {
          span.updateName(`${request.method} ${name}`)
          span.setAttribute('http.route', name)
        }
        span.setAttribute('http.response.status_code', status)
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
        span.end()
      }
      const requestSpan: RequestSpan = { traceId: span.spanContext().traceId, end: route }
      // A request the sampler left out runs outside any context: its storage calls then make no span either.
      if (span.isRecording()) context.with(trace.setSpan(parent, span), next, undefined, requestSpan)
      else next(requestSpan)
    },
    child(name, attributes: SpanAttributes, work) {
      // Only inside a recorded request: no span, no context switch otherwise.
      if (trace.getSpan(context.active())?.isRecording() !== true) return work()
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes })
      const fail = (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' })
        span.end()
        throw error
      }
      try {
        return andThen(
          context.with(trace.setSpan(context.active(), span), work),
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
