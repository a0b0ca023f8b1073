import { ApiError } from '../domain/api-error.ts'

interface KnownPath {
  pattern: RegExp
  allow: string
  responseHeaders: Record<string, string>
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * The methods each API path answers. A request for a known path with any other method (PUT,
 * TRACE, PROPFIND, ...) reaches the not-found handler, which asks here and answers 405 with
 * `Allow` instead of 404.
 */
export class AllowedMethods {
  readonly #paths: KnownPath[] = []

  /** `url` in the router's syntax (`/v1/pets/:petId`). */
  add(url: string, methods: string[], responseHeaders: Record<string, string> = {}): void {
    const allowed = new Set(methods)
    if (allowed.has('GET')) allowed.add('HEAD')
    const source = url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')
    this.#paths.push({ pattern: new RegExp(`^${source}$`), allow: METHOD_ORDER.filter((m) => allowed.has(m)).join(', '), responseHeaders })
  }

  /** The 405 for a path that exists with other methods; undefined when the path is unknown. */
  refusal(method: string, path: string): { error: ApiError; responseHeaders: Record<string, string> } | undefined {
    const known = this.#paths.find((p) => p.pattern.test(path))
    if (known === undefined) return undefined
    return {
      error: new ApiError('method_not_allowed', `${method} is not allowed here; allowed: ${known.allow}`, { allow: known.allow }),
      responseHeaders: known.responseHeaders
    }
  }
}
