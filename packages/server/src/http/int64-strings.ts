import type { onSendHookHandler, preValidationHookHandler } from 'fastify'
import type { TSchema } from 'typebox'
import {
  asksInt64Strings,
  INT64_STRING_MEDIA_TYPE,
  int64sFromStrings,
  int64sToStrings,
  parseJsonLossless,
  stringifyJson
} from '@animal-store/contract'

/**
 * The opt-in int64-as-strings representation for one route: a body sent as
 * `application/json;IEEE754Compatible=true` may give its int64 values as strings, and a
 * successful response asked for with it in `Accept` gives them as strings. Everyone else
 * gets the plain JSON numbers of the spec, untouched.
 */
export function int64StringHooks(
  response: TSchema,
  body?: TSchema
): { preValidation: preValidationHookHandler; onSend: onSendHookHandler<unknown> } {
  return {
    preValidation: (request, _reply, done) => {
      if (body !== undefined && asksInt64Strings(request.headers['content-type'])) request.body = int64sFromStrings(body, request.body)
      done()
    },
    onSend: (request, reply, payload, done) => {
      if (!asksInt64Strings(request.headers.accept) || reply.statusCode >= 300 || typeof payload !== 'string') {
        done(null, payload)
        return
      }
      reply.type(`${INT64_STRING_MEDIA_TYPE}; charset=utf-8`)
      done(null, stringifyJson(int64sToStrings(response, parseJsonLossless(payload))))
    }
  }
}
