import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler, RouteGenericInterface } from 'fastify'
import { ADMIN_BASE_PATH, type AdminOperationSpec } from '@animal-store/contract'

/** The router's path of an operation (`/admin/v1/keys/:id`). */
const adminUrl = (op: AdminOperationSpec) => `${ADMIN_BASE_PATH}${op.path.replace(/\{(\w+)\}/g, ':$1')}`

/** A body that may be left out (`rotateKey`): none sent means every field's default. */
const emptyBodyIsDefaults: preValidationHookHandler = (request, _reply, done) => {
  request.body ??= {}
  done()
}

/**
 * Registers an operator API operation from its contract: the path, the least role (checked by
 * the operator guard), the query and body schemas that validate the request, the schema that
 * serializes the answer, and its success status.
 */
export function adminRoute<R extends RouteGenericInterface>(
  app: FastifyInstance,
  op: AdminOperationSpec,
  handler: (request: FastifyRequest<R>, reply: FastifyReply) => Promise<unknown>
): void {
  app.route({
    method: op.method,
    url: adminUrl(op),
    config: { operatorRole: op.role },
    schema: {
      ...(op.query === undefined ? {} : { querystring: op.query }),
      ...(op.body === undefined ? {} : { body: op.body }),
      ...(op.success.status === 204 ? {} : { response: { [op.success.status]: op.success.schema } })
    },
    ...(op.bodyRequired === false ? { preValidation: emptyBodyIsDefaults } : {}),
    handler: async (request, reply) => {
      // The schemas above validated the request into the shape R names.
      const answer = await handler(request as unknown as FastifyRequest<R>, reply)
      reply.code(op.success.status)
      return answer
    }
  })
}

/** Sets `Link: <...>; rel="next"` when a next page exists: the same filters and limit, and the cursor. */
export function linkNext(
  reply: FastifyReply,
  pageUrl: string,
  query: Record<string, string | number | undefined>,
  next: string | undefined
): void {
  if (next === undefined) return
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && name !== 'cursor') params.set(name, String(value))
  params.set('cursor', next)
  reply.header('link', `<${pageUrl}?${params.toString()}>; rel="next"`)
}
