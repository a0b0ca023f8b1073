import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startApp, unlimitedKey } from './helpers/service.ts'

const run = promisify(execFile)
const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const EXAMPLES = readdirSync(join(PACKAGE, 'examples'))
  .filter((name) => name.endsWith('.ts'))
  .sort()

/**
 * A user's project in a temporary folder, with @animal-store/client installed as npm would
 * install it (package.json and the built dist only) and the examples copied in. Built by
 * `tsc -p tsconfig.build.json`, like `npm run build`, but into the folder, so this test
 * never races a build of packages/client/dist.
 */
describe('the package as published', () => {
  let project = ''
  let installed = ''

  after(() => rmSync(project, { recursive: true, force: true }))
  before(async () => {
    project = mkdtempSync(join(tmpdir(), 'animal-store-client-user-'))
    installed = join(project, 'node_modules', '@animal-store', 'client')
    mkdirSync(installed, { recursive: true })
    await run(process.execPath, [TSC, '-p', join(PACKAGE, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')])
    cpSync(join(PACKAGE, 'package.json'), join(installed, 'package.json'))
    cpSync(join(PACKAGE, 'examples'), join(project, 'examples'), { recursive: true })
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  })

  test('has no run-time dependency: dist imports nothing but its own files', () => {
    const files = readdirSync(join(installed, 'dist')).filter((name) => name.endsWith('.js'))
    assert.ok(files.includes('index.js') && files.includes('client.js'))
    for (const file of files) {
      const source = readFileSync(join(installed, 'dist', file), 'utf8')
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        assert.match(specifier!, /^\.\/[\w.-]+\.js$/, `${file} imports ${specifier}`)
      }
    }
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>
    assert.equal(manifest.dependencies, undefined)
    assert.deepEqual(manifest.files, ['dist'])
  })

  test('typechecks in a strict user project from its .d.ts alone (examples included)', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules', '@types')],
          noEmit: true
        },
        include: ['examples']
      })
    )
    await run(process.execPath, [TSC, '-p', project]).catch((error: { stdout?: string }) =>
      assert.fail(`user project does not typecheck:\n${error.stdout}`)
    )
  })

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
