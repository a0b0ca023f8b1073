import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { buildAdminOpenApi } from '../src/admin/openapi.ts'
import { buildOpenApi } from '../src/openapi.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const LICENCE = 'Apache-2.0'

interface Manifest {
  name: string
  license?: string
  private?: boolean
  workspaces?: string[]
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest
const root = readManifest('.')
const workspaces = (root.workspaces ?? []).map((dir) => ({ dir, manifest: readManifest(dir) }))

test('the root LICENSE is the whole Apache License 2.0, every section of it', () => {
  const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
  assert.match(text, /^\s+Apache License\n\s+Version 2\.0, January 2004\n\s+http:\/\/www\.apache\.org\/licenses\/\n/)
  const sections = [
    'Definitions',
    'Grant of Copyright License',
    'Grant of Patent License',
    'Redistribution',
    'Submission of Contributions',
    'Trademarks',
    'Disclaimer of Warranty',
    'Limitation of Liability',
    'Accepting Warranty or Additional Liability'
  ]
  sections.forEach((heading, index) =>
    assert.ok(text.includes(`   ${index + 1}. ${heading}.`), `section ${index + 1} (${heading}) is missing`)
  )
  assert.ok(text.includes('END OF TERMS AND CONDITIONS'))
})

test('every package.json names the licence, and each published package carries the LICENSE', () => {
  assert.equal(root.license, LICENCE, 'the root package.json')
  assert.ok(workspaces.length >= 3, 'the workspaces are listed in the root package.json')
  const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
  for (const { dir, manifest } of workspaces) {
    assert.equal(manifest.license, LICENCE, `${manifest.name}'s license field`)
    if (manifest.private === true) continue
    const own = join(ROOT, dir, 'LICENSE')
    assert.ok(existsSync(own), `${manifest.name} is published, so ${dir}/LICENSE must exist`)
    assert.equal(readFileSync(own, 'utf8'), licence, `${dir}/LICENSE must be the root LICENSE`)
  }
})

test("both OpenAPI documents' info.license is the packages' licence, as an SPDX identifier", () => {
  const documents = [
    buildOpenApi({ publicBaseUrl: 'https://api.animal-store.example/v1' }),
    buildAdminOpenApi({ adminBaseUrl: 'https://ops.animal-store.internal/admin/v1' })
  ] as Array<{ info: { license: unknown } }>
  for (const doc of documents) assert.deepEqual(doc.info.license, { name: LICENCE, identifier: LICENCE })
})
