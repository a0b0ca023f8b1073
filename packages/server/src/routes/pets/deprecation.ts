import type { OperationSpec } from '@animal-store/contract'

/**
 * RFC 9745 Deprecation (a Structured Field Date), RFC 8594 Sunset and the successor link,
 * for every response of a deprecated operation, errors included (see `responseHeaders`).
 */
export function deprecationHeaders(
  deprecated: NonNullable<OperationSpec['deprecated']>,
  publicBaseUrl: string,
  docsUrl: string
): Record<string, string> {
  return {
    deprecation: `@${Math.floor(deprecated.since.getTime() / 1000)}`,
    sunset: deprecated.sunset.toUTCString(),
    link: `<${publicBaseUrl}${deprecated.replacement}>; rel="successor-version", <${docsUrl}>; rel="deprecation"; type="text/html"`
  }
}
