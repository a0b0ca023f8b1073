import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify'
import type { TSchema } from 'typebox'
import {
  asksInt64Strings,
  INT64_STRING_MEDIA_TYPE,
  int64sFromStrings,
  int64sToStrings,
  parseJsonLossless,
  stringifyJson
} from '@animal-store/contract'

/*
 * The opt-in int64-as-strings representation: a body sent as
 * `application/json;IEEE754Compatible=true` may give its int64 values as strings, and a
 * successful response asked for with it in `Accept` gives them as strings. Everyone else
 * gets the plain JSON numbers of the spec, untouched, at the cost of one header test.
 */

/** A `preValidation` hook reading int64 strings in a body sent with the parameter. */
export function readsInt64Strings(body: TSchema): preValidationHookHandler {
  return (request, _reply, done) => {
    if (asksInt64Strings(request.headers['content-type'])) request.body = int64sFromStrings(body, request.body)
    done()
  }
}

/** A success body (a value, or JSON text) as the client asked for it: as it is, or with int64 as strings. */
export function asRequested(request: FastifyRequest, reply: FastifyReply, schema: TSchema, body: unknown): unknown {
  if (!asksInt64Strings(request.headers.accept) || reply.statusCode >= 300) return body
  reply.type(`${INT64_STRING_MEDIA_TYPE}; charset=utf-8`)
  return stringifyJson(int64sToStrings(schema, typeof body === 'string' ? parseJsonLossless(body) : body))
}
