// An OTLP/HTTP traces receiver for the bench's traced servers: it takes every export, answers
// success at once and keeps only counts, so the report can show that spans were exported while
// the receiver itself costs the measured server nothing it would not pay a real collector.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SinkCounts {
  /** Exports (POST /v1/traces) received. */
  exports: number
  /** Their bodies' bytes. */
  bytes: number
  /** Requests to anything else (a misconfigured exporter would show here). */
  other: number
}

export interface OtlpSink {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  endpoint: string
  counts(): SinkCounts
  close(): Promise<void>
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const counts: SinkCounts = { exports: 0, bytes: 0, other: 0 }
  const server = createServer((request, response) => {
    let bytes = 0
    request.on('data', (chunk: Buffer) => (bytes += chunk.length))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        counts.exports++
        counts.bytes += bytes
        // An empty ExportTraceServiceResponse: no body in protobuf, `{}` in JSON.
        const json = (request.headers['content-type'] ?? '').includes('json')
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '')
      } else {
        counts.other++
        response.writeHead(404).end()
      }
    })
  })
  // The traced servers keep their connections alive between exports, as to a collector.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
