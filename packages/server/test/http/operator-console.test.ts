import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { ADMIN_OPERATIONS } from '@animal-store/contract'
import { startApp } from '../helpers/app.ts'
import { sqliteBackend } from '../helpers/backends.ts'
import { assertOperatorError } from '../helpers/operator-api.ts'
import { tempDir } from '../helpers/temp.ts'

// The operator listener's pages: the console's built files (from a temporary dist/ standing in for
// the console package's) and the operator API's own OpenAPI document.

const PAGE = '<!doctype html><title>Console</title><script type="module" src="/assets/index-AbC123.js"></script>'

function builtConsole(dir: string): string {
  const dist = join(dir, 'dist')
  mkdirSync(join(dist, 'assets', 'nested'), { recursive: true })
  writeFileSync(join(dist, 'index.html'), PAGE)
  writeFileSync(join(dist, 'assets', 'index-AbC123.js'), 'console.log("console")')
  writeFileSync(join(dist, 'assets', 'index-XyZ789.css'), 'body{}')
  writeFileSync(join(dist, 'assets', 'icon-Q1.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  writeFileSync(join(dist, 'assets', 'nested', 'deep.js'), 'no')
  writeFileSync(join(dir, 'secret.txt'), 'not served')
  return dist
}

describe('operator listener: the console and the document', () => {
  test('GET / serves the built page with a strict CSP and no-store; hashed assets are cached for a year; nothing else is', async (t) => {
    const dist = builtConsole(tempDir(t))
    const app = await startApp(t, { backend: sqliteBackend, admin: { consoleDist: dist } })
    const page = await fetch(`${app.adminOrigin}/`)
    assert.equal(page.status, 200)
    assert.equal(await page.text(), PAGE)
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff')
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /^default-src 'self'; frame-ancestors 'none'/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'no inline script, no other origin')
    assert.ok(page.headers.get('x-request-id'))

    for (const [name, type, body] of [
      ['index-AbC123.js', 'text/javascript; charset=utf-8', 'console.log("console")'],
      ['index-XyZ789.css', 'text/css; charset=utf-8', 'body{}'],
      ['icon-Q1.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>']
    ]) {
      const asset = await fetch(`${app.adminOrigin}/assets/${name}`)
      assert.equal(asset.status, 200, name)
      assert.equal(asset.headers.get('content-type'), type, name)
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable', name)
      assert.equal(await asset.text(), body, name)
    }
    for (const path of [
      '/assets/missing.js',
      '/assets/nested',
      '/assets/nested/deep.js',
      '/assets/..%2Findex.html',
      '/assets/..%2F..%2Fsecret.txt',
      '/assets/%2E%2E/secret.txt',
      '/index.html',
      '/secret.txt'
    ]) {
      const response = await fetch(`${app.adminOrigin}${path}`)
      assert.equal(response.status, 404, path)
      assert.equal(((await response.json()) as { code: string }).code, 'not_found', path)
    }
    const head = await fetch(`${app.adminOrigin}/`, { method: 'HEAD' })
    assert.equal(head.status, 200)
    assert.equal((await fetch(`${app.adminOrigin}/`, { method: 'POST' })).status, 405)
  })

  test('without a built console, GET / says how to build it', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, admin: { consoleDist: join(tempDir(t), 'dist') } })
    await assertOperatorError(await fetch(`${app.adminOrigin}/`), 'not_found', 'npm run build')
    assert.equal((await fetch(`${app.adminOrigin}/assets/index.js`)).status, 404)
  })

  test('GET /admin/v1/openapi.json is the operator document, its server this listener; the public document does not change', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, admin: true })
    const response = await fetch(`${app.adminOrigin}/admin/v1/openapi.json`)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('cache-control'), 'no-store')
    const doc = (await response.json()) as {
      servers: Array<{ url: string }>
      paths: Record<string, Record<string, { operationId: string }>>
    }
    assert.deepEqual(
      doc.servers.map((server) => server.url),
      [`${app.adminOrigin}/admin/v1`]
    )
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId))
    assert.deepEqual(ids.sort(), ADMIN_OPERATIONS.map((op) => op.operationId).sort())
    const publicDoc = (await (await app.fetch('/v1/openapi.json', { key: null })).json()) as { paths: Record<string, unknown> }
    assert.ok(Object.keys(publicDoc.paths).every((path) => !path.includes('admin')))
    // The listener answers unknown paths and methods as the public one does.
    await assertOperatorError(await fetch(`${app.adminOrigin}/admin/v1/nothing`), 'not_found')
    const wrong = await fetch(`${app.adminOrigin}/admin/v1/keys`, { method: 'DELETE' })
    assert.equal(wrong.headers.get('allow'), 'GET, HEAD, POST, OPTIONS')
    await assertOperatorError(wrong, 'method_not_allowed')
  })
})
