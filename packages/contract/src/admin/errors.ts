import type { Static } from 'typebox'
import { ERROR_DESCRIPTIONS, ERROR_EXAMPLE_MESSAGES, ERROR_STATUS, errorSchemas } from '../errors.ts'

/**
 * The operator API's codes: the public API's, plus `forbidden` (a viewer's write) and the plans' and customers' conflicts. One table for
 * both listeners; the public document lists only the public codes, so it does not change.
 */
export const OPERATOR_ERROR_STATUS = { ...ERROR_STATUS, forbidden: 403, plan_exists: 409, plan_in_use: 409, customer_exists: 409 } as const

export type OperatorErrorCode = keyof typeof OPERATOR_ERROR_STATUS
export const OPERATOR_ERROR_CODES = Object.keys(OPERATOR_ERROR_STATUS) as OperatorErrorCode[]

export const OPERATOR_ERROR_DESCRIPTIONS: Record<OperatorErrorCode, string> = {
  ...ERROR_DESCRIPTIONS,
  unauthorized: 'The operator token is missing, malformed, unknown or revoked',
  forbidden: "The operator's role may not do this: a viewer only reads",
  not_found: 'No key, customer or plan with this id, or no such route',
  plan_exists: 'A plan with this id exists already',
  plan_in_use: 'Customers are on this plan: move them to another first',
  customer_exists: 'Another customer has this externalId',
  rate_limited: 'Too many failed sign-ins from this address; retry after Retry-After seconds'
}

export const OPERATOR_ERROR_EXAMPLE_MESSAGES: Record<OperatorErrorCode, string> = {
  ...ERROR_EXAMPLE_MESSAGES,
  unauthorized: 'the operator token is missing, malformed, unknown or revoked',
  forbidden: 'a viewer may not revoke keys; this needs the admin role',
  not_found: 'no key has id "key_0000000000000000"',
  validation_failed: 'perMinute must be a whole number of at least 1',
  invalid_cursor: 'cursor is not a cursor from a next link',
  rate_limited: 'too many failed sign-ins from this address; retry after 42 seconds',
  plan_exists: 'a plan with id "startup" exists already',
  plan_in_use: 'plan "startup" has 14 customers on it; move them to another plan first',
  customer_exists: 'customer cus_4Rk8Wq2Zx7Lm3Np9 has externalId "cus_NffrFeUfNV2Hib" already'
}

const OPERATOR_ERROR_SCHEMAS = errorSchemas(OPERATOR_ERROR_CODES)
export const OperatorErrorCodeSchema = OPERATOR_ERROR_SCHEMAS.code
export const OperatorErrorBody = OPERATOR_ERROR_SCHEMAS.body
export type OperatorErrorBody = Static<typeof OperatorErrorBody>
