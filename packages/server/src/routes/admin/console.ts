import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../domain/api-error.ts'

/** The console's built page and its hashed assets, read once at start. */
export interface ConsoleFiles {
  index: Buffer
  assets: Map<string, { type: string; body: Buffer }>
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8'
}

// No inline script and no other origin: the page loads its own hashed files and calls this origin's API.
const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
const IMMUTABLE = 'public, max-age=31536000, immutable'
const NOT_BUILT = 'the operator console is not built: run `npm run build` at the repository root, then restart the service'

/** The console package's dist/ folder, found softly: the service runs without the package. */
function consoleDist(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@animal-store/console/package.json')), 'dist')
  } catch {
    return undefined
  }
}

/**
 * The built console in `dist` (default: the `@animal-store/console` package's), or undefined when
 * it is not there. Only the files listed now are ever served: a name in a URL is looked up, never
 * joined to a path.
 */
export function readConsole(dist: string | undefined = consoleDist()): ConsoleFiles | undefined {
  if (dist === undefined) return undefined
  try {
    const index = readFileSync(join(dist, 'index.html'))
    const assets = new Map<string, { type: string; body: Buffer }>()
    const folder = join(dist, 'assets')
    const names = statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true ? readdirSync(folder) : []
    for (const name of names) {
      const path = join(folder, name)
      if (!statSync(path).isFile()) continue
      assets.set(name, { type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream', body: readFileSync(path) })
    }
    return { index, assets }
  } catch {
    return undefined
  }
}

/** `GET /`: the console's page; `GET /assets/<name>`: its hashed files, cached for a year. */
export function registerConsole(app: FastifyInstance, files: ConsoleFiles | undefined): void {
  app.get('/', async (_request, reply) => {
    if (files === undefined) throw new ApiError('not_found', NOT_BUILT)
    reply.header('content-security-policy', CSP).header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8')
    return files.index
  })
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const file = files?.assets.get(request.params.name)
    if (file === undefined) return reply.callNotFound()
    reply.header('cache-control', IMMUTABLE).type(file.type)
    return file.body
  })
}
