import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../../domain/api-error.ts'

interface KnownPath {
  pattern: RegExp
  methods: Set<string>
  allow: string
  responseHeaders: Record<string, string>
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** What the not-found handler answers for a path that exists with other methods. */
export type KnownPathAnswer =
  | { kind: 'options'; allow: string; responseHeaders: Record<string, string> }
  | { kind: 'refusal'; error: ApiError; responseHeaders: Record<string, string> }

/**
 * The methods each path answers, learnt from every route as it is added (API or not). A
 * request for a known path with any other method (PUT, TRACE, PROPFIND, ...) reaches the
 * not-found handler, which asks here: `OPTIONS` is answered with `Allow`, anything else is 405
 * with `Allow`, instead of 404.
 */
export class AllowedMethods {
  readonly #paths = new Map<string, KnownPath>()

  /** Learns the routes added from now on; call before any route is added. */
  learnRoutes(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      this.add(route.url, methods, route.config?.responseHeaders)
    })
  }

  /** `url` in the router's syntax (`/v1/pets/:petId`). */
  add(url: string, methods: readonly string[], responseHeaders: Record<string, string> = {}): void {
    const known = this.#paths.get(url) ?? {
      pattern: new RegExp(
        `^${url
          .split('/')
          .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')}$`
      ),
      methods: new Set(['OPTIONS']),
      allow: '',
      responseHeaders
    }
    for (const method of methods) known.methods.add(method)
    if (known.methods.has('GET')) known.methods.add('HEAD')
    known.allow = METHOD_ORDER.filter((m) => known.methods.has(m)).join(', ')
    this.#paths.set(url, known)
  }

  /** The answer for a path that exists with other methods; undefined when the path is unknown (404). */
  answer(method: string, path: string): KnownPathAnswer | undefined {
    const known = [...this.#paths.values()].find((candidate) => candidate.pattern.test(path))
    // A route that exists for this method sent the request here itself (`/docs/<no such file>`).
    if (known === undefined || (known.methods.has(method) && method !== 'OPTIONS')) return undefined
    const { allow, responseHeaders } = known
    if (method === 'OPTIONS') return { kind: 'options', allow, responseHeaders }
    const shown = method.length > 20 ? `${method.slice(0, 20)}...` : method
    return {
      kind: 'refusal',
      error: new ApiError('method_not_allowed', `${shown} is not allowed here; allowed: ${allow}`, { allow }),
      responseHeaders
    }
  }
}
