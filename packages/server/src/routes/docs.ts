import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'

// Everything the page loads comes from this service: swagger-ui-dist from npm, no CDN.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png'
}

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false
  })
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Animal Store API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`

// The page may talk to nothing but this origin; a CDN reference would be blocked and show up in tests.
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'"
].join('; ')

/** `GET /docs`: the interactive API reference, rendering `/v1/openapi.json`. */
export function registerDocs(app: FastifyInstance): void {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(dist, name)) }]))
  files.set('init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT) })

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
