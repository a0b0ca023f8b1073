import type { ExportResult } from '@opentelemetry/core'
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base'
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http'
import { JsonTraceSerializer, ProtobufTraceSerializer, type ISerializer } from '@opentelemetry/otlp-transformer'
import type { FinishedSpan, SpanEncoding } from './finished-span.ts'

/** One export request: its body, already encoded, and how many spans it holds. */
export interface EncodedBatch {
  readonly body: Uint8Array
  readonly spans: number
}

/** Sends one batch; resolves once it is delivered or given up on (a failure is not retried past the sender's own retries). */
export type SendBatch = (batch: EncodedBatch) => Promise<ExportResult>

/** The batch processor's limits, as the SDK's BatchSpanProcessor sets them by default. */
export const BATCH_LIMITS = { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000 }

/**
 * Batches finished spans as the SDK's BatchSpanProcessor does (a batch leaves when it holds
 * `maxExportBatchSize` spans or `scheduledDelayMillis` after its first; at most `maxQueueSize`
 * spans wait, newer ones are dropped; one export at a time, each given up after
 * `exportTimeoutMillis`), but a span is encoded into its batch's request body as it arrives,
 * so a batch waits as bytes, not as objects the garbage collector must trace.
 */
export class SpanExport {
  /** Spans dropped because the queue was full. */
  dropped = 0
  private readonly queue: EncodedBatch[] = []
  private waiting = 0
  private sending: Promise<void> | undefined = undefined
  private timer: NodeJS.Timeout | undefined = undefined
  private readonly encoding: SpanEncoding
  private readonly send: SendBatch
  private readonly limits: typeof BATCH_LIMITS

  constructor(encoding: SpanEncoding, send: SendBatch, limits = BATCH_LIMITS) {
    this.encoding = encoding
    this.send = send
    this.limits = { ...limits, maxExportBatchSize: Math.min(limits.maxExportBatchSize, limits.maxQueueSize) }
  }

  /** Adds a span to the open batch; `clockOffset` as `clockOffset()` returned it for this turn. */
  add(span: FinishedSpan, clockOffset: number): void {
    if (this.waiting + this.encoding.size >= this.limits.maxQueueSize) {
      this.dropped++
      return
    }
    this.encoding.append(span, clockOffset)
    if (this.encoding.size >= this.limits.maxExportBatchSize) this.seal()
    else if (this.timer === undefined) this.timer = setTimeout(() => this.seal(), this.limits.scheduledDelayMillis).unref()
  }

  /** Sends every span added so far; resolves once all are delivered or given up on. */
  async flush(): Promise<void> {
    if (this.encoding.size > 0) this.seal()
    while (this.sending !== undefined) await this.sending
  }

  private seal(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.encoding.size === 0) return
    const spans = this.encoding.size
    this.queue.push({ body: this.encoding.take(), spans })
    this.waiting += spans
    if (this.sending === undefined) this.sending = this.drain()
  }

  private async drain(): Promise<void> {
    for (let batch = this.queue.shift(); batch !== undefined; batch = this.queue.shift()) {
      await this.deliver(batch)
      this.waiting -= batch.spans
    }
    this.sending = undefined
  }

  /** Sends `batch`, giving up on it after exportTimeoutMillis; a failed batch is dropped, as the SDK drops it. */
  private async deliver(batch: EncodedBatch): Promise<void> {
    let timeout: NodeJS.Timeout | undefined
    const givenUp = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, this.limits.exportTimeoutMillis).unref()
    })
    try {
      await Promise.race([
        this.send(batch).then(
          () => undefined,
          () => undefined
        ),
        givenUp
      ])
    } finally {
      clearTimeout(timeout)
    }
  }
}

/**
 * OpenTelemetry's OTLP/HTTP exporter (its transport, retries, timeouts, headers, compression and
 * OTEL_EXPORTER_OTLP_* settings) sending bodies already encoded.
 */
export function otlpSender(
  options: { url: string; headers: Record<string, string> },
  contentType: string
): { send: SendBatch; shutdown: () => Promise<void> } {
  const responses = contentType.includes('json') ? JsonTraceSerializer : ProtobufTraceSerializer
  const serializer: ISerializer<EncodedBatch, unknown> = {
    serializeRequest: (batch) => batch.body,
    deserializeResponse: (data) => responses.deserializeResponse(data)
  }
  const exporter = new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(options, 'TRACES', 'v1/traces', { 'Content-Type': contentType }),
      serializer,
      'otlp_http_span_exporter',
      { name: 'span', countItems: (batch) => batch.spans },
      undefined
    )
  )
  return {
    send: (batch) => new Promise<ExportResult>((resolve) => exporter.export(batch, resolve)),
    shutdown: () => exporter.shutdown()
  }
}
