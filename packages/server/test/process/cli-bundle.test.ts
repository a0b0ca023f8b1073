import assert from 'node:assert/strict'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { buildBundle } from '../../scripts/build.ts'
import { BUNDLE_ENTRY, BUNDLE_MANIFEST, freshBundle, type BundleManifest } from '../../src/cli/entry.ts'
import { BIN, runCli, startServe } from '../helpers/cli.ts'
import { freePort, tempDir } from '../helpers/temp.ts'

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url))
const ROOT = join(SERVER_DIR, '..', '..')

/**
 * A copy of the CLI's launcher beside a bundle of its own, without the sources: it can only
 * run the bundle. Inside the repository, so the bundle finds node_modules as dist/ does.
 */
async function bundledCli(t: TestContext): Promise<{ bin: string; dist: string }> {
  mkdirSync(join(ROOT, 'test-output'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, 'test-output', 'bundle-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'bin'))
  mkdirSync(join(dir, 'src', 'cli'), { recursive: true })
  copyFileSync(BIN, join(dir, 'bin', 'animal-store.js'))
  copyFileSync(join(SERVER_DIR, 'src', 'cli', 'entry.ts'), join(dir, 'src', 'cli', 'entry.ts'))
  await buildBundle(join(dir, 'dist'))
  return { bin: join(dir, 'bin', 'animal-store.js'), dist: join(dir, 'dist') }
}

/** A dist/ with a manifest over one input file and an entry file, as the build leaves them. */
function fakeDist(t: TestContext): { dist: string; input: string; builtAt: number } {
  const dir = tempDir(t)
  const dist = join(dir, 'dist')
  mkdirSync(dist)
  const input = join(dir, 'main.ts')
  writeFileSync(input, '')
  const builtAt = Date.now() + 1_000
  writeFileSync(join(dist, BUNDLE_ENTRY), '')
  writeFileSync(join(dist, BUNDLE_MANIFEST), JSON.stringify({ builtAt, inputs: [relative(dist, input)] } satisfies BundleManifest))
  return { dist, input, builtAt }
}

describe('the bundle (scripts/build.ts), and the CLI choosing it or the sources (src/cli/entry.ts)', () => {
  test('a bundled CLI prints the same OpenAPI document as the sources and serves a keyed request', async (t) => {
    const { bin, dist } = await bundledCli(t)
    const manifest = JSON.parse(readFileSync(join(dist, BUNDLE_MANIFEST), 'utf8')) as BundleManifest
    for (const source of ['server/src/main.ts', 'server/src/app.ts', 'contract/src/pets.ts']) {
      assert.ok(
        manifest.inputs.some((input) => input.endsWith(source)),
        `${source} is among the inputs`
      )
    }
    assert.ok(
      manifest.inputs.every((input) => !input.includes('node_modules/') || input.endsWith('node_modules/.package-lock.json')),
      "dependencies are covered by npm's record, not file by file"
    )

    const [bundled, sources] = await Promise.all([runCli(['openapi'], {}, bin), runCli(['openapi'], {})])
    assert.equal(bundled.code, 0, bundled.stderr)
    assert.equal(bundled.stdout, sources.stdout)

    const port = await freePort()
    const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}`, PORT: String(port) }
    const created = await runCli(['keys', 'create', '--plan', 'pro', '--json'], env, bin)
    assert.equal(created.code, 0, created.stderr)
    const { key } = JSON.parse(created.stdout) as { key: string }
    const origin = `http://127.0.0.1:${port}`
    const server = await startServe(env, origin, bin)
    t.after(() => server.child.kill('SIGKILL'))
    const response = await fetch(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":9007199254740993}'
    })
    assert.equal(response.status, 201)
    assert.match(await response.text(), /"categoryId":9007199254740993/)
    const docs = await fetch(`${origin}/docs/swagger-ui.css`)
    assert.equal(docs.status, 200, 'swagger-ui-dist is found from dist/')
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())
  })

  test('the launcher runs the sources once the bundle is older than an input (here: there are none, so it fails)', async (t) => {
    const { bin, dist } = await bundledCli(t)
    const manifestPath = join(dist, BUNDLE_MANIFEST)
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as BundleManifest
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, builtAt: 0 }))
    const result = await runCli(['openapi'], {}, bin)
    assert.notEqual(result.code, 0)
    assert.match(result.stderr, /Cannot find module '.*src\/main\.ts'/)
  })

  test(
    'freshBundle: the entry while every input is as old as the build; ' +
      'undefined when one is newer, gone, or the manifest or entry is not there',
    async (t) => {
      const fresh = fakeDist(t)
      assert.equal(freshBundle(fresh.dist), join(fresh.dist, BUNDLE_ENTRY))

      const newer = fakeDist(t)
      utimesSync(newer.input, new Date(newer.builtAt + 1), new Date(newer.builtAt + 1))
      assert.equal(freshBundle(newer.dist), undefined)

      const gone = fakeDist(t)
      rmSync(gone.input)
      assert.equal(freshBundle(gone.dist), undefined)

      const unreadable = fakeDist(t)
      writeFileSync(join(unreadable.dist, BUNDLE_MANIFEST), '{"builtAt":')
      assert.equal(freshBundle(unreadable.dist), undefined)

      const empty = fakeDist(t)
      writeFileSync(join(empty.dist, BUNDLE_MANIFEST), JSON.stringify({ builtAt: Date.now(), inputs: [] }))
      assert.equal(freshBundle(empty.dist), undefined)

      const noEntry = fakeDist(t)
      rmSync(join(noEntry.dist, BUNDLE_ENTRY))
      assert.equal(freshBundle(noEntry.dist), undefined)
    }
  )
})
