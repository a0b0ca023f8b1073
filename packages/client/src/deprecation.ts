import { findLink } from './link-header.ts'

/** What a deprecated operation's response says about its end (RFC 9745 Deprecation, RFC 8594 Sunset). */
export interface DeprecationNotice {
  /** The operationId, e.g. `getPet`. */
  operation: string
  /** When the service stops answering it (`Sunset`); from then on the call fails with `gone`. */
  sunset: Date | undefined
  /** When it was deprecated (`Deprecation`). */
  deprecatedSince: Date | undefined
  /** The operation to use instead (`Link: <...>; rel="successor-version"`). */
  successor: string | undefined
}

function readDate(text: string | null): Date | undefined {
  if (text === null) return undefined
  // RFC 9745 writes a Structured Field Date, `@<unix seconds>`; RFC 8594 an HTTP-date.
  const at = /^@(-?[0-9]+)$/.exec(text.trim())
  const time = at === null ? Date.parse(text) : Number(at[1]) * 1000
  return Number.isNaN(time) ? undefined : new Date(time)
}

export function readDeprecation(operation: string, headers: Headers): DeprecationNotice | undefined {
  const sunset = readDate(headers.get('sunset'))
  const deprecatedSince = readDate(headers.get('deprecation'))
  if (sunset === undefined && deprecatedSince === undefined) return undefined
  return { operation, sunset, deprecatedSince, successor: findLink(headers.get('link'), 'successor-version') }
}

/** The default: one warning per client and operation, so a loop of calls does not flood the console. */
export function warnOncePerOperation(): (notice: DeprecationNotice) => void {
  const warned = new Set<string>()
  return (notice) => {
    if (warned.has(notice.operation)) return
    warned.add(notice.operation)
    const sunset = notice.sunset === undefined ? 'soon' : `on ${notice.sunset.toISOString().slice(0, 10)}`
    const successor = notice.successor ?? 'its replacement'
    console.warn(`@animal-store/client: ${notice.operation} is deprecated and is removed ${sunset}; use ${successor} instead`)
  }
}
