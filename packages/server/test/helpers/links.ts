/** The URL of the next page, from the response's `Link: <...>; rel="next"` header; undefined on the last page. */
export function nextLink(response: Response): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
}
