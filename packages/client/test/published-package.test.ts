import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { installOffline, packClient, typecheck, writeTsconfig, type PackedPackage } from './helpers/packed-package.ts'
import { startApp, unlimitedKey } from './helpers/service.ts'

const run = promisify(execFile)
const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const MODULES = readdirSync(join(PACKAGE, 'src'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -'.ts'.length))
const EXAMPLES = readdirSync(join(PACKAGE, 'examples'))
  .filter((name) => name.endsWith('.ts'))
  .sort()

interface Manifest {
  version: string
  main?: string
  types?: string
  exports?: Record<string, string | Record<string, string>>
  dependencies?: Record<string, string>
}

/**
 * A user's empty project in a temporary folder, with the tarball of `npm pack` (built by the
 * package's prepack, as a publish builds it) installed by npm, offline, and the examples copied in.
 */
describe('the package as published', () => {
  let folder = ''
  let project = ''
  let packed: PackedPackage
  let installed = ''
  let manifest: Manifest

  after(() => rmSync(folder, { recursive: true, force: true }))
  before(async () => {
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'animal-store-client-user-')))
    packed = await packClient(folder)
    project = join(folder, 'app')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
    await installOffline(project, packed.tarball)
    installed = join(project, 'node_modules', '@animal-store', 'client')
    manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Manifest
    cpSync(join(PACKAGE, 'examples'), join(project, 'examples'), { recursive: true })
    copyFileSync(join(PACKAGE, 'test', 'fixtures', 'uses-client.ts'), join(project, 'uses-client.ts'))
  })

  test('the tarball holds the built ESM, its types, README, LICENSE, CHANGELOG and package.json: nothing else', () => {
    const dist = MODULES.flatMap((name) => [`dist/${name}.d.ts`, `dist/${name}.js`])
    assert.deepEqual(packed.files, ['CHANGELOG.md', 'LICENSE', 'README.md', ...dist, 'package.json'].sort())
    const exported = Object.values(manifest.exports ?? {}).flatMap((to) => (typeof to === 'string' ? [to] : Object.values(to)))
    for (const target of [manifest.main, manifest.types, ...exported]) {
      assert.ok(
        target !== undefined && packed.files.includes(target.replace(/^\.\//, '')),
        `package.json points at ${target}, not in the tarball`
      )
    }
  })

  test('its LICENSE is the Apache License 2.0 and its CHANGELOG has an entry for its version', () => {
    assert.equal(readFileSync(join(installed, 'LICENSE'), 'utf8'), readFileSync(join(REPO, 'LICENSE'), 'utf8'))
    const changelog = readFileSync(join(installed, 'CHANGELOG.md'), 'utf8')
    assert.ok(
      changelog.includes(`\n## ${manifest.version}\n`),
      `CHANGELOG.md has no "## ${manifest.version}": run \`npm run version-packages\``
    )
  })

  test('has no run-time dependency, and no source map naming sources it does not ship', () => {
    assert.equal(manifest.dependencies, undefined)
    for (const file of packed.files.filter((path) => path.startsWith('dist/'))) {
      const source = readFileSync(join(installed, file), 'utf8')
      assert.doesNotMatch(source, /sourceMappingURL/, `${file} names a source map`)
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        assert.match(specifier!, /^\.\/[\w.-]+\.js$/, `${file} imports ${specifier}`)
      }
    }
  })

  const USERS = {
    'Node.js (nodenext, @types/node)': { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: ['node'] },
    'a bundler (browser lib, no Node types)': { module: 'preserve', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [] }
  }
  for (const [user, compilerOptions] of Object.entries(USERS)) {
    test(`typechecks for ${user} from the installed .d.ts, and the old rateLimit getter is gone`, async () => {
      const include = compilerOptions.types.length > 0 ? ['uses-client.ts', 'examples'] : ['uses-client.ts']
      const files = await typecheck(writeTsconfig(project, `tsconfig.${compilerOptions.moduleResolution}.json`, compilerOptions, include))
      const types = join(installed, 'dist', 'index.d.ts')
      assert.ok(
        files.includes(types),
        `the types came from elsewhere than ${types}:\n${files.filter((f) => !f.includes(`${sep}typescript${sep}`)).join('\n')}`
      )
    })
  }

  for (const example of EXAMPLES) {
    test(`examples/${example} runs against a started service`, async (t) => {
      const app = await startApp(t)
      const apiKey = example === 'rate-limit-errors.ts' ? await app.key({ plan: 'free' }) : await unlimitedKey(app)
      const { stdout } = await run(process.execPath, [join(project, 'examples', example)], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', BASE_URL: app.base, API_KEY: apiKey },
        timeout: 30_000
      })
      assert.match(
        stdout,
        {
          'quickstart.ts':
            /created pet 1\n1\tRex\tavailable\n2\tTom\tsold\nlisted 2 pets\nrate limit: \d+ of \d+ left until 2026-06-15T12:01:00\.000Z\n/,
          'exact-int64.ts': /got back 9223372036854775807 \(bigint\)[^]*got back 9007199254740993 \(bigint\)[^]*got back 42 \(number\)/,
          'rate-limit-errors.ts': new RegExp(
            '^request 61: rate_limited, retry after 50 s\\n' +
              '  minute: 0 of 60 left, resets in 50 s\\n' +
              '  day: 940 of 1000 left, resets in 43190 s\\n$'
          )
        }[example] ?? /./
      )
    })
  }

  test("the client's README shows examples/quickstart.ts as it is", () => {
    const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8')
    assert.ok(
      readme.includes(readFileSync(join(PACKAGE, 'examples', 'quickstart.ts'), 'utf8')),
      'packages/client/README.md must contain examples/quickstart.ts verbatim'
    )
  })
})
