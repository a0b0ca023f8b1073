import type { FastifyInstance } from 'fastify'
import { ADMIN_BASE_PATH, buildAdminOpenApi, stringifyJson } from '@animal-store/contract'

/** `GET /admin/v1/openapi.json`: the operator API's own document, its server this listener; public, like the API's. */
export function registerAdminOpenApiRoute(app: FastifyInstance, baseUrl: () => string): void {
  let text: string | undefined
  app.get(`${ADMIN_BASE_PATH}/openapi.json`, async (_request, reply) => {
    // Built on first request: the listener's port is known only once it listens.
    text ??= `${stringifyJson(buildAdminOpenApi({ adminBaseUrl: baseUrl() }), 2)}\n`
    reply.type('application/json; charset=utf-8')
    return text
  })
}
