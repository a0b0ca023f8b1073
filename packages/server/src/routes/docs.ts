import type { FastifyInstance } from 'fastify'
import { CSP, docsFiles, PAGE } from './docs/reference-page.ts'

/** `GET /docs`: the interactive API reference, rendering `/v1/openapi.json`. */
export function registerDocs(app: FastifyInstance): void {
  const files = docsFiles()

  app.get('/docs', async (_request, reply) => {
    reply.header('content-security-policy', CSP).type('text/html; charset=utf-8')
    return PAGE
  })
  app.get<{ Params: { file: string } }>('/docs/:file', async (request, reply) => {
    const file = files.get(request.params.file)
    if (file === undefined) return reply.callNotFound()
    reply.header('cache-control', 'public, max-age=3600').type(file.type)
    return file.body
  })
}
