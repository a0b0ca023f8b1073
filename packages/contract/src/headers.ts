import Type, { type TSchema } from 'typebox'

export interface HeaderSpec {
  description: string
  schema: TSchema
}

/** Response headers the service sends, described once for the OpenAPI document. */
export const RESPONSE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'The limit of the window in force (the one with the fewest requests remaining; the shorter on a tie)',
    schema: Type.Integer()
  },
  'X-RateLimit-Remaining': { description: 'Requests remaining in the window in force', schema: Type.Integer() },
  'X-RateLimit-Reset': { description: 'Unix time in seconds at which the window in force ends', schema: Type.Integer() },
  'RateLimit-Policy': {
    description: 'IETF draft-ietf-httpapi-ratelimit-headers-10 policies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`',
    schema: Type.String()
  },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers-10 state, ' +
      'e.g. `"minute";r=59;t=42, "day";r=880;t=51234` (t is seconds until the window ends)',
    schema: Type.String()
  },
  'Retry-After': { description: 'Whole seconds to wait before retrying', schema: Type.Integer({ minimum: 1 }) },
  'X-Request-Id': { description: 'Identifies the request in the logs; echoes a sane client-sent X-Request-Id', schema: Type.String() },
  Location: { description: 'The address of the created animal', schema: Type.String({ format: 'uri' }) },
  Link: { description: 'RFC 8288 links: `rel="next"` to the following page when there is one', schema: Type.String() },
  Deprecation: { description: 'RFC 9745: the moment the operation was deprecated, as a Structured Field Date', schema: Type.String() },
  Sunset: { description: 'RFC 8594: the moment the operation is removed', schema: Type.String() },
  'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge', schema: Type.String() },
  Allow: { description: 'The methods the path supports', schema: Type.String() },
  'Idempotent-Replayed': {
    description: '`true` when the response is a replay of the first response to this Idempotency-Key',
    schema: Type.String()
  }
} satisfies Record<string, HeaderSpec>

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS

export const RATE_LIMIT_HEADERS: ResponseHeaderName[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit'
]
