import type { FastifyInstance, FastifyRequest } from 'fastify'
import { parseJsonLossless } from '@animal-store/contract'
import { ApiError } from '../domain/api-error.ts'

/** The largest body the API accepts (DESIGN §3); larger is 413 before it is read in full. */
export const BODY_LIMIT_BYTES = 16 * 1024

/**
 * Replaces Fastify's JSON parser with one that keeps int64 literals exact and answers
 * what is not a JSON object with `bad_request`.
 */
export function registerJsonBody(app: FastifyInstance): void {
  // Fastify also parses text/plain by default; only JSON is an API body.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (request: FastifyRequest, body: string | Buffer, done) => {
      // JSON is UTF-8 (RFC 8259); a body declared in another charset would be misread.
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase()
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        return done(new ApiError('unsupported_media_type', `the body must be UTF-8 JSON, not charset=${charset}`), undefined)
      }
      const text = typeof body === 'string' ? body : body.toString('utf8')
      if (text.trim() === '') return done(new ApiError('bad_request', 'the body is empty: send a JSON object'), undefined)
      let value: unknown
      try {
        value = parseJsonLossless(text)
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
      done(null, value)
    }
  )
}
