import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorCode, OperatorErrorCode } from '@animal-store/contract'
import { ApiError } from '../../../domain/api-error.ts'
import { CustomerExistsError, CustomerInputError, CustomerNotFoundError } from '../../../domain/customers/errors.ts'
import { KeyInputError, KeyNotFoundError, KeyRevokedError } from '../../../domain/keys/errors.ts'
import { PlanExistsError, PlanInputError, PlanInUseError, PlanNotFoundError } from '../../../domain/plans/errors.ts'
import { UsageQueryError } from '../../../domain/usage/range.ts'
import { StorageUnavailableError } from '../../../storage/types.ts'
import { errorBody } from './error-body.ts'
import type { AllowedMethods } from './method-not-allowed.ts'

/** Seconds a client should wait before retrying when a backing store is unreachable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

const FRAMEWORK_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'the body must be a JSON object sent with Content-Type: application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'the body is larger than 16 KiB (16384 bytes)'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['bad_request', 'the body is empty: send a JSON object'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['bad_request', 'the body is not valid JSON'],
  FST_ERR_BAD_URL: ['bad_request', 'the request URL is malformed'],
  FST_ERR_MAX_PARAM_LENGTH: ['not_found', 'no such resource'],
  FST_ERR_ASYNC_CONSTRAINT: ['bad_request', 'the request could not be routed']
}

const BY_STATUS: Record<number, ErrorCode> = {
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'header_fields_too_large'
}

/** The domain's refusals, by kind, and the code each answers with; their messages are written for the API's callers. */
const DOMAIN_ERRORS: Array<[new (...args: never[]) => Error, OperatorErrorCode]> = [
  [KeyNotFoundError, 'not_found'],
  [KeyInputError, 'validation_failed'],
  [KeyRevokedError, 'validation_failed'],
  [UsageQueryError, 'validation_failed'],
  [PlanNotFoundError, 'not_found'],
  [PlanInputError, 'validation_failed'],
  [PlanExistsError, 'plan_exists'],
  [PlanInUseError, 'plan_in_use'],
  [CustomerNotFoundError, 'not_found'],
  [CustomerInputError, 'validation_failed'],
  [CustomerExistsError, 'customer_exists']
]

/** Maps anything thrown, by any layer, to the code, message and headers of an Error body. */
export function classify(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error
  for (const [kind, code] of DOMAIN_ERRORS) if (error instanceof kind) return new ApiError(code, error.message)
  if (error instanceof StorageUnavailableError) {
    return new ApiError('unavailable', 'the database is unreachable; retry later', {
      'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS)
    })
  }
  const fastifyError = error as Partial<FastifyError> | undefined
  const known = fastifyError?.code === undefined ? undefined : FRAMEWORK_ERRORS[fastifyError.code]
  if (known !== undefined) return new ApiError(known[0], known[1])
  const status = fastifyError?.statusCode
  if (status !== undefined && status >= 400 && status < 500)
    return new ApiError(BY_STATUS[status] ?? 'bad_request', 'the request could not be processed')
  return undefined
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error.code, error.message))
}

/** Every error, from any layer, leaves as an Error body with the right status; never a stack trace. */
export function registerErrorHandling(app: FastifyInstance, allowedMethods: AllowedMethods): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = classify(error)
    if (known !== undefined) {
      if (known.code === 'unavailable') request.log.warn({ err: error }, 'backing store unavailable')
      return sendError(reply, known)
    }
    request.log.error({ err: error }, 'unhandled error')
    return sendError(
      reply,
      new ApiError('internal_error', `an unexpected error occurred; quote request id ${request.id} when reporting it`)
    )
  })

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? ''
    const known = allowedMethods.answer(request.method, path)
    if (known?.kind === 'options') return reply.headers(known.responseHeaders).header('allow', known.allow).code(204).send()
    if (known !== undefined) {
      reply.headers(known.responseHeaders)
      return sendError(reply, known.error)
    }
    return sendError(
      reply,
      new ApiError('not_found', `no resource at ${request.method} ${path.length > 100 ? `${path.slice(0, 100)}...` : path}`)
    )
  })
}

/**
 * Fastify's own routing failures (bad URL encoding) skip the hooks, so they get the request
 * context and, under /v1, the API guard here (rate-limit headers on every /v1 response), then
 * our Error body.
 */
export function frameworkErrorHandler(before: (request: FastifyRequest, reply: FastifyReply) => Promise<void>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const known = classify(error) ?? new ApiError('bad_request', 'the request could not be processed')
    before(request, reply).then(
      () => sendError(reply, known),
      (refusal: unknown) => sendError(reply, classify(refusal) ?? known)
    )
  }
}
