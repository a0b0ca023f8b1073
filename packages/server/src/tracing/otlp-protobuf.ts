import { epochTime, SCOPE_NAME, spanFlags, type FinishedSpan, type SpanEncoding, type SpanSource } from './finished-span.ts'
import { ProtobufWriter, varintSize, writeVarint } from './protobuf-writer.ts'

/**
 * Spans as an OTLP/HTTP protobuf ExportTraceServiceRequest. Each span is written into the open
 * batch's bytes as it is appended, so no span object outlives the turn it ended in; the request is
 * those bytes behind a resource and scope encoded once. The bytes are those the SDK's
 * ProtobufTraceSerializer writes for the same spans, in one pass instead of its two.
 */
export class ProtobufSpans implements SpanEncoding {
  readonly contentType = 'application/x-protobuf'
  size = 0
  private readonly out = new ProtobufWriter()
  /** Resource (field 1 of ResourceSpans) and scope (field 1 of ScopeSpans), with their tags. */
  private readonly resource: Buffer
  private readonly scope: Buffer
  private readonly time: [number, number] = [0, 0]

  constructor(source: SpanSource) {
    const head = new ProtobufWriter(1024)
    head.byte(0x0a)
    const resource = head.open()
    head.attributes(0x0a, { 'service.name': source.serviceName, 'service.version': source.version })
    head.byte(0x10) // dropped_attributes_count
    head.varint(0)
    head.close(resource)
    this.resource = head.bytes()
    head.pos = 0
    head.byte(0x0a)
    const scope = head.open()
    head.byte(0x0a)
    head.string(SCOPE_NAME)
    if (source.version !== '') {
      head.byte(0x12)
      head.string(source.version)
    }
    head.close(scope)
    this.scope = head.bytes()
  }

  append(span: FinishedSpan, clockOffset: number): void {
    const out = this.out
    out.reserve(widest(span))
    out.byte(0x12) // ScopeSpans.spans
    const start = out.open()
    out.byte(0x0a)
    out.hex(span.traceId, 16)
    out.byte(0x12)
    out.hex(span.spanId, 8)
    if (span.traceState !== undefined && span.traceState !== '') {
      out.byte(0x1a)
      out.string(span.traceState)
    }
    if (span.parentSpanId !== undefined) {
      out.byte(0x22)
      out.hex(span.parentSpanId, 8)
    }
    out.byte(0x2a)
    out.string(span.name)
    out.byte(0x30)
    out.varint(span.kind)
    const [startSeconds, startNanos] = epochTime(span.startedAt, clockOffset, this.time)
    out.byte(0x39)
    out.nanos(startSeconds, startNanos)
    const [endSeconds, endNanos] = epochTime(span.endedAt, clockOffset, this.time)
    out.byte(0x41)
    out.nanos(endSeconds, endNanos)
    out.attributes(0x4a, span.attributes)
    // No dropped attributes, events or links, written as the SDK writes them (fields 10, 12, 14).
    out.byte(0x50)
    out.byte(0)
    out.byte(0x60)
    out.byte(0)
    out.byte(0x70)
    out.byte(0)
    out.byte(0x7a)
    const status = out.open()
    if (span.statusMessage !== undefined && span.statusMessage !== '') {
      out.byte(0x12)
      out.string(span.statusMessage)
    }
    out.byte(0x18)
    out.varint(span.status)
    out.close(status)
    out.byte(0x85) // field 16, fixed32: two bytes of tag
    out.byte(0x01)
    out.fixed32(spanFlags(span))
    out.close(start)
    this.size++
  }

  take(): Uint8Array {
    const spans = this.out.pos
    const scopeSpans = this.scope.length + spans
    const resourceSpans = this.resource.length + 1 + varintSize(scopeSpans) + scopeSpans
    const body = Buffer.allocUnsafe(1 + varintSize(resourceSpans) + resourceSpans)
    let at = writeVarint(body, writeVarint(body, 0, 0x0a), resourceSpans)
    at += this.resource.copy(body, at)
    at = writeVarint(body, writeVarint(body, at, 0x12), scopeSpans)
    at += this.scope.copy(body, at)
    this.out.buffer.copy(body, at, 0, spans)
    this.out.pos = 0
    this.size = 0
    return body
  }
}

/** The most bytes a span can take: its strings at 3 bytes a character (UTF-8), the rest fixed. */
function widest(span: FinishedSpan): number {
  let bytes = 160 + 3 * (span.name.length + (span.traceState?.length ?? 0) + (span.statusMessage?.length ?? 0))
  for (const key in span.attributes) {
    const value = span.attributes[key]!
    bytes += 48 + 3 * key.length + (typeof value === 'string' ? 3 * value.length : 0)
  }
  return bytes
}
