import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { INIT_SCRIPT } from './init-script.ts'

// Everything the page loads comes from this service: swagger-ui-dist from npm, no CDN.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png'
}

export const PAGE = `<!doctype html>
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
export const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'"
].join('; ')

/** The files under `/docs/`: Swagger UI's, read once from its npm package, and the script that starts it. */
export function docsFiles(): Map<string, { type: string; body: Buffer }> {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(dist, name)) }]))
  files.set('init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT_SCRIPT) })
  return files
}
