import type { SpanAttributes } from '../base/tracing.ts'

/** OTLP's SpanKind numbers (the API's plus one). */
export const SERVER_KIND = 2
export const CLIENT_KIND = 3
/** OTLP's StatusCode numbers. */
export const STATUS_UNSET = 0
export const STATUS_ERROR = 2

/** A span as it is exported: ids in lower-case hex, times in `performance.now()` milliseconds. */
export interface FinishedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  /** The caller's W3C `tracestate`, serialized; undefined when it sent none. */
  readonly traceState: string | undefined
  /** Whether the parent is a caller's span (from a `traceparent`) rather than one of ours. */
  readonly remoteParent: boolean
  readonly name: string
  readonly kind: typeof SERVER_KIND | typeof CLIENT_KIND
  readonly startedAt: number
  readonly endedAt: number
  readonly attributes: SpanAttributes
  readonly status: typeof STATUS_UNSET | typeof STATUS_ERROR
  readonly statusMessage: string | undefined
}

/** W3C sampled, and OTLP's "whether the parent is remote is known" and "it is". */
export function spanFlags(span: FinishedSpan): number {
  return 0x01 | 0x100 | (span.remoteParent ? 0x200 : 0)
}

/** The instrumentation scope every span is exported under. */
export const SCOPE_NAME = 'animal-store'

/** The resource and instrumentation scope every exported span belongs to. */
export interface SpanSource {
  readonly serviceName: string
  readonly version: string
}

/** Writes finished spans into the body of one OTLP/HTTP export request after another. */
export interface SpanEncoding {
  /** The export request's Content-Type. */
  readonly contentType: string
  /** Spans in the open batch. */
  readonly size: number
  /** Adds a span to the open batch; `clockOffset` (ms) turns its `performance.now()` times into epoch times. */
  append(span: FinishedSpan, clockOffset: number): void
  /** The open batch as a request body; the next span starts a new batch. */
  take(): Uint8Array
}

/**
 * How far the wall clock has drifted from `performance.timeOrigin + performance.now()`, ms: added
 * to a recorded time before it is made an epoch time, as the SDK corrects a span's times.
 */
export function clockOffset(): number {
  return Date.now() - (performance.now() + performance.timeOrigin)
}

const ORIGIN_SECONDS = Math.trunc(performance.timeOrigin / 1000)
const ORIGIN_NANOS = Math.round((performance.timeOrigin % 1000) * 1e6)

/**
 * A recorded `performance.now()` time as epoch [seconds, nanoseconds], the two parts kept apart
 * as the SDK keeps them (their sum as one double would lose the sub-microsecond digits).
 */
export function epochTime(at: number, offset: number, out: [number, number]): [number, number] {
  const since = at + offset
  const seconds = Math.trunc(since / 1000)
  let nanos = ORIGIN_NANOS + Math.round((since % 1000) * 1e6)
  let whole = ORIGIN_SECONDS + seconds
  if (nanos >= 1e9) {
    nanos -= 1e9
    whole += 1
  }
  out[0] = whole
  out[1] = nanos
  return out
}
