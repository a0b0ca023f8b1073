/**
 * The cursor of the `rel="next"` target of a Link header (RFC 8288), or null on the last page.
 * Only the cursor is taken: the console asks its own origin again with the same filters, so a
 * link naming another host is never followed.
 */
export function nextCursor(header: string | null): string | null {
  if (header === null) return null
  for (const link of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link)
    if (match === null) continue
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '')
    const rel = rels?.[1] ?? rels?.[2] ?? ''
    if (!rel.toLowerCase().split(/\s+/).includes('next')) continue
    return new URL(match[1] ?? '', 'http://link.invalid/').searchParams.get('cursor')
  }
  return null
}
