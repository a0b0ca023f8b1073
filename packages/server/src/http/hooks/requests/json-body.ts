import type { FastifyInstance, FastifyRequest, preParsingHookHandler } from 'fastify'
import { parseJsonRequest } from '@animal-store/contract'
import { ApiError } from '../../../domain/api-error.ts'

/** The largest body the API accepts (DESIGN §3); larger is 413 before it is read in full. */
export const BODY_LIMIT_BYTES = 16 * 1024

// Invalid UTF-8 is refused, not read as U+FFFD: a name is stored as sent or not at all.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
// Only an escape can put a lone surrogate into a JSON string read from valid UTF-8.
const MAYBE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

/** The field (top-level property, or `body`) holding a key or string with a lone surrogate. */
function illFormedString(value: unknown, field: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : field || 'the body'
  if (value === null || typeof value !== 'object' || depth > 64) return undefined
  for (const [key, inner] of Object.entries(value)) {
    const name = field || key
    if (!key.isWellFormed()) return `the property name ${JSON.stringify(key)}`
    const found = illFormedString(inner, name, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * A body in a content coding is refused before it is read, never parsed as if it were plain:
 * decoding would need the limit on the decoded size, and no client needs it for 16 KiB.
 */
const refuseContentEncoding: preParsingHookHandler = (request, _reply, payload, done) => {
  const encoding = request.headers['content-encoding']
  if (encoding === undefined || /^\s*identity\s*$/i.test(encoding)) return done(null, payload)
  const shown = encoding.length > 40 ? `${encoding.slice(0, 40)}...` : encoding
  done(
    new ApiError('unsupported_media_type', `Content-Encoding: ${shown} is not accepted: send the JSON body unencoded`, {
      'accept-encoding': 'identity'
    })
  )
}

/**
 * Replaces Fastify's JSON parser with one that keeps int64 literals exact and answers
 * what is not a JSON object with `bad_request`.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) return
    const own = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing]
    route.preParsing = [refuseContentEncoding, ...own]
  })
  // Fastify also parses text/plain by default; only JSON is an API body.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (request: FastifyRequest, body: string | Buffer, done) => {
      // JSON is UTF-8 (RFC 8259); a body declared in another charset would be misread.
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase()
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        return done(new ApiError('unsupported_media_type', `the body must be UTF-8 JSON, not charset=${charset}`), undefined)
      }
      let text: string
      try {
        text = typeof body === 'string' ? body : STRICT_UTF8.decode(body)
      } catch {
        return done(new ApiError('bad_request', 'the body is not valid UTF-8'), undefined)
      }
      if (text.trim() === '') return done(new ApiError('bad_request', 'the body is empty: send a JSON object'), undefined)
      let value: unknown
      try {
        value = parseJsonRequest(text)
      } catch (error) {
        const reason = error instanceof RangeError ? 'it is nested too deeply' : (error as Error).message
        return done(new ApiError('bad_request', `the body is not valid JSON: ${reason}`), undefined)
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        return done(
          new ApiError(
            'bad_request',
            `the body must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`
          ),
          undefined
        )
      }
      const broken = MAYBE_SURROGATE_ESCAPE.test(text) ? illFormedString(value, '', 0) : undefined
      if (broken !== undefined) {
        return done(
          new ApiError(
            'validation_failed',
            `${broken} must be valid Unicode text: it holds an unpaired surrogate (a \\uD800-\\uDFFF escape alone)`
          ),
          undefined
        )
      }
      done(null, value)
    }
  )
}
