import { parseStructuredList } from './rate-limit-state.ts'

/**
 * The target of the first link with relation `rel` in an RFC 8288 `Link` header.
 * Link-values are `<uri>; param=value` joined by commas; a URI may itself hold commas.
 */
export function findLink(header: string | null, rel: string): string | undefined {
  if (header === null) return undefined
  const values = /<([^>]*)>([^<]*)/g
  for (const [, target, rest] of header.matchAll(values)) {
    const params = parseStructuredList(`x${rest ?? ''}`.replace(/,\s*$/, ''))[0]?.params
    const rels = params?.get('rel')?.toLowerCase().split(/\s+/) ?? []
    if (rels.includes(rel)) return target
  }
  return undefined
}
