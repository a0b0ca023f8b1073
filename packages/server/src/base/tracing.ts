import type { Maybe } from './maybe.ts'

/**
 * Distributed tracing as the service sees it. The composition root picks the implementation
 * (OpenTelemetry, `tracing/otel-tracing.ts`) when the OTEL_* environment asks for it; with
 * tracing off there is no Tracing at all and nothing on the request path looks for one.
 */
export interface Tracing {
  /**
   * The server span of a request, continuing a caller's W3C `traceparent` from `headers`; started
   * only when the sampler takes the request, with what `describe(request)` says of it (called for
   * sampled requests alone). Undefined when the sampler leaves the request out and no caller sent
   * a trace: such a request costs no span, no context and no id.
   */
  startRequest<R>(headers: RequestHeaders, request: R, describe: (request: R) => ServerRequestInfo): RequestSpan | undefined
  /**
   * Runs `work` in a child span of the active one; the span ends when the result settles. A leaf:
   * `work` starts no span of its own, so it keeps the request's context.
   */
  child<T>(name: string, attributes: SpanAttributes, work: () => Maybe<T>): Maybe<T>
  /** Spans dropped since start because the export queue was full (the collector slow or unreachable). */
  readonly droppedSpans: number
  /** Exports what is still buffered, then stops. */
  close(): Promise<void>
}

export type SpanAttributes = Record<string, string | number | boolean>
export type RequestHeaders = Record<string, string | string[] | undefined>

/** The attributes the HTTP conventions require of a server span, no more (each costs every sampled request). */
export interface ServerRequestInfo {
  method: string
  /** The URL path, without the query, with any key-shaped segment masked as the log masks it. */
  path: string
  scheme: string
}

export interface RequestSpan {
  /** Hex trace id, for the request's log line: the span's, or the caller's for a request left out. */
  readonly traceId: string
  /** Runs `work` inside the span's context, so spans started below become its children. */
  run(work: () => void): void
  /** Names the span by its route (`GET /v1/pets/:petId`) and ends it with the response status. */
  end(route: string | undefined, status: number): void
}

/** What OTEL_* asks for; undefined keeps tracing off. */
export interface TracingConfig {
  /** The OTLP/HTTP traces endpoint (`.../v1/traces`). */
  endpoint: string
  protocol: 'http/protobuf' | 'http/json'
  serviceName: string
  sampler: { name: string; ratio: number }
  /** OTEL_EXPORTER_OTLP_HEADERS: sent to the collector, never logged. */
  headers: Record<string, string>
}

type Env = Record<string, string | undefined>

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']

/** The standard OpenTelemetry variables to a TracingConfig; tracing is on once an OTLP endpoint is set. */
export function tracingConfig(env: Env, configError: (message: string) => Error): TracingConfig | undefined {
  const get = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name])
  const traces = get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  const base = get('OTEL_EXPORTER_OTLP_ENDPOINT')
  if (get('OTEL_SDK_DISABLED') === 'true' || get('OTEL_TRACES_EXPORTER') === 'none' || (traces ?? base) === undefined) return undefined
  const endpoint = traces ?? `${base!.replace(/\/+$/, '')}/v1/traces`
  if (!/^https?:\/\/[^/]/.test(endpoint)) throw configError('the OTLP traces endpoint must be an http:// or https:// URL')
  const protocol = get('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? get('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf'
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw configError(`OTEL_EXPORTER_OTLP_PROTOCOL=${JSON.stringify(protocol)} is not supported: use http/protobuf or http/json`)
  }
  const sampler = get('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on'
  if (!SAMPLERS.includes(sampler))
    throw configError(`OTEL_TRACES_SAMPLER=${JSON.stringify(sampler)} is invalid: expected one of ${SAMPLERS.join(', ')}`)
  const ratioText = get('OTEL_TRACES_SAMPLER_ARG') ?? '1'
  const ratio = Number(ratioText)
  if (sampler.endsWith('traceidratio') && !(ratio >= 0 && ratio <= 1))
    throw configError('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1')
  const headers: Record<string, string> = {}
  for (const pair of (get('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? get('OTEL_EXPORTER_OTLP_HEADERS') ?? '').split(',')) {
    const at = pair.indexOf('=')
    if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
  }
  return { endpoint, protocol, serviceName: get('OTEL_SERVICE_NAME') ?? 'animal-store', sampler: { name: sampler, ratio }, headers }
}
