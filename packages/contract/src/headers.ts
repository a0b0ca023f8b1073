import Type, { type TSchema } from 'typebox'

// Bounds for header values: documented so tools (and the OWASP ruleset) see every value bounded.
const COUNT = { format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const
const HEADER_TEXT = (maxLength: number, example: string) => Type.String({ maxLength, pattern: '^[\\x20-\\x7E]*$', example })

export interface HeaderSpec {
  description: string
  schema: TSchema
}

/** Response headers the service sends, described once for the OpenAPI document. */
export const RESPONSE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'The limit of the window in force (the one with the fewest requests remaining; the shorter on a tie)',
    schema: Type.Integer({ ...COUNT, example: 60 })
  },
  'X-RateLimit-Remaining': { description: 'Requests remaining in the window in force', schema: Type.Integer({ ...COUNT, example: 59 }) },
  'X-RateLimit-Reset': {
    description: 'Unix time in seconds at which the window in force ends',
    schema: Type.Integer({ format: 'int64', minimum: 0, maximum: 253402300799, example: 1798761600 })
  },
  'RateLimit-Policy': {
    description: 'IETF draft-ietf-httpapi-ratelimit-headers-10 policies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`',
    schema: HEADER_TEXT(256, '"minute";q=60;w=60, "day";q=1000;w=86400')
  },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers-10 state, ' +
      'e.g. `"minute";r=59;t=42, "day";r=880;t=51234` (t is seconds until the window ends)',
    schema: HEADER_TEXT(256, '"minute";r=59;t=42, "day";r=880;t=51234')
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying',
    schema: Type.Integer({ format: 'int32', minimum: 1, maximum: 86400, example: 42 })
  },
  'X-Request-Id': {
    description: 'Identifies the request in the logs; echoes a sane client-sent X-Request-Id',
    schema: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9._-]{1,128}$', example: 'req-3f9c2b7a1d' })
  },
  Location: {
    description: 'The address of the created animal',
    schema: Type.String({ format: 'uri', maxLength: 2048, example: 'https://api.example.com/v1/pets/9007199254740993' })
  },
  Link: {
    description: 'RFC 8288 links: `rel="next"` to the following page when there is one',
    schema: HEADER_TEXT(2048, '<https://api.example.com/v1/pets?limit=2&cursor=KjoyMDI>; rel="next"')
  },
  Deprecation: {
    description: 'RFC 9745: the moment the operation was deprecated, as a Structured Field Date',
    schema: Type.String({ maxLength: 24, pattern: '^@-?[0-9]{1,15}$', example: '@1767225600' })
  },
  Sunset: { description: 'RFC 8594: the moment the operation is removed', schema: HEADER_TEXT(64, 'Thu, 05 Dec 2030 00:00:00 GMT') },
  'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge', schema: HEADER_TEXT(256, 'Bearer realm="animal-store"') },
  Allow: { description: 'The methods the path supports', schema: HEADER_TEXT(64, 'GET, POST') },
  'Cache-Control': {
    description: '`no-store`: answers that name keys, usage or operators are never kept by a cache',
    schema: Type.Literal('no-store')
  },
  'Idempotent-Replayed': {
    description: '`true` when the response is a replay of the first response to this Idempotency-Key',
    schema: Type.Literal('true')
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
