import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { test } from 'node:test'

// How the admin listener finds the page: the package's own package.json, then dist/ beside it.
// `npm test` builds it first (pretest).
const DIST = join(dirname(createRequire(import.meta.url).resolve('@animal-store/console/package.json')), 'dist')

test('the built page runs under the CSP: no inline script or style, hashed files under /assets/ only', () => {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8')
  const assets = readdirSync(join(DIST, 'assets'))
  assert.ok(assets.length > 0)
  for (const name of assets) assert.match(name, /^[\w-]+-[\w-]{8}\.(js|css|svg)$/, `${name} carries a content hash`)

  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  assert.equal(scripts.length, 1, 'one script: the module entry')
  for (const [, attributes, body] of scripts) {
    assert.equal(body?.trim(), '', 'no inline script')
    assert.match(attributes ?? '', /\bsrc="\/assets\/[\w-]+\.js"/)
  }
  assert.doesNotMatch(html, /<style\b/i, 'no <style> element')
  assert.doesNotMatch(html, /\sstyle=/i, 'no style attribute')
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handler')
  assert.doesNotMatch(html, /(https?:)?\/\/[a-z0-9]/i, 'nothing from another origin')
  for (const [, href] of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) {
    assert.match(href ?? '', /^\/assets\/[\w-]+\.\w+$/, `${href} is one of the hashed files`)
    assert.ok(existsSync(join(DIST, href ?? '')), `${href} exists`)
  }
  for (const name of assets.filter((file) => file.endsWith('.css'))) {
    const css = readFileSync(join(DIST, 'assets', name), 'utf8')
    assert.doesNotMatch(css, /url\(|@import/, `${name} loads nothing (a data: URL or another origin would need more in the CSP)`)
  }
})
