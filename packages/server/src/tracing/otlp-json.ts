import type { SpanAttributes } from '../base/tracing.ts'
import { epochTime, SCOPE_NAME, spanFlags, type FinishedSpan, type SpanEncoding, type SpanSource } from './finished-span.ts'

/**
 * Spans as an OTLP/HTTP JSON ExportTraceServiceRequest: each span is made its JSON text as it is
 * appended (no span object outlives its turn), the request joins them. The same document as the
 * SDK's JsonTraceSerializer makes of the same spans.
 */
export class JsonSpans implements SpanEncoding {
  readonly contentType = 'application/json'
  private spans: string[] = []
  private readonly head: string
  private readonly time: [number, number] = [0, 0]

  constructor(source: SpanSource) {
    const resource = {
      attributes: keyValues({ 'service.name': source.serviceName, 'service.version': source.version }),
      droppedAttributesCount: 0
    }
    const scope = { name: SCOPE_NAME, version: source.version }
    this.head = `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${JSON.stringify(scope)},"spans":[`
  }

  get size(): number {
    return this.spans.length
  }

  append(span: FinishedSpan, clockOffset: number): void {
    this.spans.push(
      JSON.stringify({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
        traceState: span.traceState === '' ? undefined : span.traceState,
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: nanos(epochTime(span.startedAt, clockOffset, this.time)),
        endTimeUnixNano: nanos(epochTime(span.endedAt, clockOffset, this.time)),
        attributes: keyValues(span.attributes),
        droppedAttributesCount: 0,
        events: [],
        droppedEventsCount: 0,
        status: { code: span.status, message: span.statusMessage },
        links: [],
        droppedLinksCount: 0,
        flags: spanFlags(span)
      })
    )
  }

  take(): Uint8Array {
    const body = Buffer.from(`${this.head}${this.spans.join(',')}]}]}]}`)
    this.spans = []
    return body
  }
}

function keyValues(attributes: SpanAttributes) {
  return Object.keys(attributes).map((key) => {
    const value = attributes[key]!
    const any =
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: value }
            : { doubleValue: value }
    return { key, value: any }
  })
}

/** Epoch nanoseconds as OTLP/JSON spells a fixed64: a decimal string. */
function nanos([seconds, nanos]: [number, number]): string {
  return (BigInt(seconds) * 1_000_000_000n + BigInt(nanos)).toString()
}
