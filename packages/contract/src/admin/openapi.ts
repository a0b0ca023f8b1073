import type { TSchema } from 'typebox'
import { buildDocument } from '../openapi-builder.ts'
import { API_VERSION } from '../openapi.ts'
import { AuditEvent, AuditEvents } from './audit.ts'
import {
  OPERATOR_ERROR_DESCRIPTIONS,
  OPERATOR_ERROR_EXAMPLE_MESSAGES,
  OPERATOR_ERROR_STATUS,
  OperatorErrorBody,
  OperatorErrorCodeSchema
} from './errors.ts'
import { Customer, CustomerPatch, Customers, NewCustomer } from './customers/schemas.ts'
import { BannedKeys, Key, KeyLimits, KeyPatch, KeyRotation, Keys, KeyWithSecret, NewKey } from './keys/schemas.ts'
import { ADMIN_COMMON_ERRORS, ADMIN_OPERATIONS } from './operations.ts'
import { Operator } from './operators.ts'
import { TopCustomer, TopCustomers, TopKey, TopKeys, UsageBucket, UsageBuckets } from './usage/schemas.ts'

/** Where the operator API is served from, e.g. `http://127.0.0.1:8081/admin/v1`. */
export const ADMIN_BASE_PATH = '/admin/v1'

const COMPONENTS: Record<string, TSchema> = {
  Key,
  KeyLimits,
  KeyWithSecret,
  Keys,
  BannedKeys,
  NewKey,
  KeyPatch,
  KeyRotation,
  Customer,
  Customers,
  NewCustomer,
  CustomerPatch,
  UsageBucket,
  UsageBuckets,
  TopKey,
  TopKeys,
  TopCustomer,
  TopCustomers,
  AuditEvent,
  AuditEvents,
  Operator
}

const OPERATOR_ERRORS = {
  status: OPERATOR_ERROR_STATUS,
  descriptions: OPERATOR_ERROR_DESCRIPTIONS,
  messages: OPERATOR_ERROR_EXAMPLE_MESSAGES
}

/** The operator API's OpenAPI 3.1 document, from the same schemas that validate its requests. */
export function buildAdminOpenApi(options: { adminBaseUrl: string }): Record<string, unknown> {
  return buildDocument({
    operations: ADMIN_OPERATIONS,
    components: COMPONENTS,
    errorSchemas: { code: OperatorErrorCodeSchema, body: OperatorErrorBody },
    errors: OPERATOR_ERRORS,
    commonErrors: ADMIN_COMMON_ERRORS,
    everyResponseHeaders: ['Cache-Control', 'X-Request-Id'],
    version: API_VERSION,
    info: {
      title: 'Animal Store operator API',
      contact: { name: 'Animal Store operations', email: 'ops@animal-store.example', url: 'https://animal-store.example/support' },
      description:
        'For the people who run the service: customers, their API keys and plans, usage over time by outcome, bans and the audit log. ' +
        'Served on its own listener (`ADMIN_HOST`:`ADMIN_PORT`), never on the public port. ' +
        'Every operation needs `Authorization: Bearer <operator token>` (`as_admin_...`, from `animal-store operators create`); ' +
        'a viewer reads, an admin also changes customers, keys and plans. Every key belongs to a customer, whose limits, windows and ban its keys share. Plans are data (`listPlans`); a new database has free, pro, business and enterprise. Times are ISO 8601 in UTC.'
    },
    servers: [{ url: options.adminBaseUrl, description: 'Production operator listener (internal)', 'x-internal': true }],
    security: [{ operatorToken: [] }],
    tags: [
      { name: 'Customers', description: 'Who holds keys: their plan, limits, windows and ban are shared by all their keys' },
      { name: 'Keys', description: 'API keys: create, change, rotate, revoke, unban; bans now' },
      { name: 'Plans', description: 'Plans as data: their limits, shared by every customer on them' },
      { name: 'Usage', description: 'Requests by key, minute and outcome: allowed, rate limited, banned' },
      { name: 'Audit', description: 'Who changed which key or operator, and when' },
      { name: 'Operators', description: 'The operator signed in' }
    ],
    securitySchemes: {
      operatorToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'An operator token (`as_admin_...`) created with `animal-store operators create`; never an API key'
      }
    }
  })
}
