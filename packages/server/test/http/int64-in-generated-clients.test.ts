import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { INT64_STRING_MEDIA_TYPE } from '@animal-store/contract'
import { postJson, startApp } from '../helpers/app.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const MAX = '9223372036854775807'

/** Runs a Node program (the same Node as the tests) to completion without blocking the service under test. */
function run(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env } })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
}

/** The client README's recipe: the TypeScript block after `<!-- int64-recipe -->`. */
function readmeRecipe(): string {
  const readme = readFileSync(`${ROOT}packages/client/README.md`, 'utf8')
  const block = /<!-- int64-recipe -->\n```ts\n([\s\S]*?)```/.exec(readme)
  assert.ok(block, 'the README has the int64 recipe')
  return block[1]!
}

describe('exact int64 through generated clients', () => {
  test('openapi-typescript + openapi-fetch, as the README says, round-trips 9223372036854775807', async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const dir = `${ROOT}test-output/client-recipe-${process.pid}/`
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(`${dir}package.json`, '{ "type": "module" }\n')
    writeFileSync(`${dir}recipe.ts`, readmeRecipe())

    // The client's types, generated from the document the service serves.
    const cli = `${ROOT}node_modules/openapi-typescript/bin/cli.js`
    const command = /^\/\/ npx openapi-typescript "\$BASE_URL\/openapi.json" (.*)$/m.exec(readmeRecipe())
    assert.ok(command, 'the recipe says how to generate the types')
    const generated = await run([cli, `${app.base}/openapi.json`, ...command[1]!.split(' ')], { cwd: dir })
    assert.equal(generated.code, 0, generated.out)
    assert.match(readFileSync(`${dir}animal-store.d.ts`, 'utf8'), /IEEE754Compatible=true/)

    // The recipe typechecks against them (int64 typed as strings in that representation) ...
    const tsc = `${ROOT}node_modules/typescript/bin/tsc`
    const options = [
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--module',
      'nodenext',
      '--target',
      'es2024',
      '--allowImportingTsExtensions'
    ]
    const typed = await run([tsc, ...options, '--types', 'node', '--typeRoots', `${ROOT}node_modules/@types`, 'recipe.ts'], { cwd: dir })
    assert.equal(typed.code, 0, typed.out)

    // ... and, run, creates the pet and reads it back with every digit.
    const ran = await run(['recipe.ts'], { cwd: dir, env: { BASE_URL: app.base, API_KEY: key } })
    assert.equal(ran.code, 0, ran.out)
    assert.equal(ran.out.trim(), MAX)
  })

  test('any JSON.parse client: Accept with IEEE754Compatible=true gives int64 as strings; the default is unchanged', async (t) => {
    const app = await startApp(t)
    const created = await postJson(app, '/v1/pets', `{"name":"Max","categoryId":"${MAX}"}`, {
      headers: { 'content-type': INT64_STRING_MEDIA_TYPE, accept: INT64_STRING_MEDIA_TYPE }
    })
    assert.equal(created.status, 201)
    assert.equal(created.headers.get('content-type'), `${INT64_STRING_MEDIA_TYPE}; charset=utf-8`)
    const pet = JSON.parse(await created.text()) as { id: string; categoryId: string }
    assert.equal(pet.categoryId, MAX)
    assert.equal(typeof pet.id, 'string')
    const page = JSON.parse(await (await app.fetch('/v1/pets', { headers: { accept: INT64_STRING_MEDIA_TYPE } })).text()) as Array<{
      categoryId: string
    }>
    assert.equal(page[0]?.categoryId, MAX)
    const plain = await app.fetch('/v1/pets')
    assert.equal(plain.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(await plain.text(), `[{"id":${pet.id},"name":"Max","categoryId":${MAX},"status":"available"}]`)
    // A string int64 without the opt-in is refused as the spec says.
    assert.equal((await postJson(app, '/v1/pets', `{"name":"Max","categoryId":"${MAX}"}`)).status, 400)
  })
})
