import type { TSchema } from 'typebox'
import { ERROR_DESCRIPTIONS, ERROR_EXAMPLE_MESSAGES, ERROR_STATUS, ErrorBody, ErrorCodeSchema } from './errors.ts'
import { RATE_LIMIT_HEADERS } from './headers.ts'
import { buildDocument } from './openapi-builder.ts'
import { COMMON_ERRORS, OPERATIONS } from './operations.ts'
import { NewPet, Pet, Pets, PetStatus } from './pets.ts'
import { RateLimitStatus, RateLimitWindow } from './rate-limit.ts'
import { UsageBucket, UsageBuckets } from './admin/usage/schemas.ts'

export interface OpenApiOptions {
  /** The production `{base_url}`, ending in `/v1`. */
  publicBaseUrl: string
  /** The `{staging_base_url}`, when there is one. */
  stagingBaseUrl?: string | undefined
}

export const API_VERSION = '1.0.0'

const COMPONENTS: Record<string, TSchema> = {
  Pet,
  NewPet,
  Pets,
  PetStatus,
  RateLimitStatus,
  RateLimitWindow,
  UsageBucket,
  UsageBuckets
}

/** The public API's errors: what its documents say of each code. */
const PUBLIC_ERRORS = { status: ERROR_STATUS, descriptions: ERROR_DESCRIPTIONS, messages: ERROR_EXAMPLE_MESSAGES }

/** The OpenAPI 3.1 document, generated from the same schemas that validate requests. */
export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  // x-internal: false tells inventory tools both servers are meant for the API's public users.
  const servers = [{ url: options.publicBaseUrl, description: 'Production', 'x-internal': false }]
  if (options.stagingBaseUrl !== undefined) servers.push({ url: options.stagingBaseUrl, description: 'Staging', 'x-internal': false })
  return buildDocument({
    operations: OPERATIONS,
    components: COMPONENTS,
    int64Components: new Set<TSchema>([Pet, NewPet, Pets]),
    errorSchemas: { code: ErrorCodeSchema, body: ErrorBody },
    errors: PUBLIC_ERRORS,
    commonErrors: COMMON_ERRORS,
    everyResponseHeaders: [...RATE_LIMIT_HEADERS, 'X-Request-Id'],
    version: API_VERSION,
    info: {
      title: 'Animal Store API',
      contact: { name: 'Animal Store API support', email: 'api@animal-store.example', url: 'https://animal-store.example/support' },
      description:
        'List, add and (deprecated) get the animals of a store. Every operation needs `Authorization: Bearer <API key>`. ' +
        'Rate limits by plan are reported on every response; see the error codes in `ErrorCode`. ' +
        'Int64 values beyond 2^53 are exact JSON numbers; a client whose JSON parser rounds them asks for them as strings ' +
        'with `Accept` (and `Content-Type`) `application/json;IEEE754Compatible=true`.'
    },
    servers,
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Pets', description: 'The animals of the store' },
      { name: 'Rate limits', description: "The caller's own use of its plan" },
      { name: 'Usage', description: "The caller's requests over time, by outcome, all its customer's keys together" }
    ],
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`as_live_...`) created with `animal-store keys create`' }
    }
  })
}
