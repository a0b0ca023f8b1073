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

// Integers beyond 2^53 must show with every digit. Swagger UI's resolver cannot hold a BigInt,
// so it gets the document as JSON.parse gives it; once resolved, each rounded integer is put
// back as the exact BigInt the document holds (exact.js). JSON.parse on this page keeps
// an integer it would round as a BigInt, and JSON.stringify writes a BigInt as its digits, so
// the examples and "Try it out" responses show every digit.
const INIT = `(function () {
  var nativeParse = JSON.parse
  function exactReviver(key, value, context) {
    var rounded = typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)
    if (rounded && context && /^-?[0-9]+$/.test(context.source)) {
      var exact = BigInt(context.source)
      return exact === BigInt(value) ? value : exact
    }
    return value
  }
  JSON.parse = function (text, reviver) {
    var exact = reviver === undefined && typeof text === 'string' && /[0-9]{16}/.test(text)
    return exact ? nativeParse(text, exactReviver) : nativeParse(text, reviver)
  }
  BigInt.prototype.toJSON = function () { return JSON.rawJSON(this.toString()) }

  var exactByRounded = new Map()
  function collect(value) {
    if (typeof value === 'bigint') {
      var rounded = Number(value)
      exactByRounded.set(rounded, exactByRounded.has(rounded) && exactByRounded.get(rounded) !== value ? null : value)
    } else if (value !== null && typeof value === 'object') {
      for (var key in value) collect(value[key])
    }
  }
  function rounded(value) {
    if (typeof value === 'bigint') return Number(value)
    if (value === null || typeof value !== 'object') return value
    var out = Array.isArray(value) ? [] : {}
    for (var key in value) out[key] = rounded(value[key])
    return out
  }
  function exact(value) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && exactByRounded.get(value)) return exactByRounded.get(value)
    if (value === null || typeof value !== 'object') return value
    if (typeof value.toJS === 'function') return exact(value.toJS())
    var out = Array.isArray(value) ? [] : {}
    for (var key in value) out[key] = exact(value[key])
    return out
  }
  function ExactInt64Plugin() {
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            updateResolvedSubtree: function (original) { return function (path, value) { return original(path, exact(value)) } },
            updateResolved: function (original) { return function (value) { return original(exact(value)) } }
          }
        }
      }
    }
  }

  window.addEventListener('load', function () {
    fetch('/v1/openapi.json').then(function (response) { return response.text() }).then(function (text) {
      var doc = JSON.parse(text)
      collect(doc)
      window.ui = SwaggerUIBundle({
        spec: rounded(doc), dom_id: '#swagger-ui', deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false,
        plugins: [ExactInt64Plugin]
      })
    })
  })
})()
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
