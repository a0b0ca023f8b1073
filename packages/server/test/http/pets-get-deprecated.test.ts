import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'

function assertDeprecationHeaders(app: TestApp, response: Response): void {
  const deprecation = response.headers.get('deprecation')
  assert.match(deprecation ?? '', /^@\d+$/, 'RFC 9745 Structured Field Date')
  const since = Number(deprecation!.slice(1)) * 1000
  assert.ok(since <= Date.UTC(2030, 11, 5), 'deprecated no later than the sunset')
  assert.equal(response.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')
  assert.ok(response.headers.get('link')?.includes(`<${app.base}/pets>; rel="successor-version"`), response.headers.get('link') ?? '')
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`GET /v1/pets/{petId} (deprecated) [${backend.name}]`, { skip }, () => {
    test('returns the pet with Deprecation, Sunset and the successor link', async (t) => {
      const app = await startApp(t, { backend })
      const created = (await (await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 3, status: 'pending' })).json()) as { id: number }
      const response = await app.fetch(`/v1/pets/${created.id}`)
      assert.equal(response.status, 200)
      assert.deepEqual(await response.json(), { id: created.id, name: 'Rex', categoryId: 3, status: 'pending' })
      assertDeprecationHeaders(app, response)
    })

    test('unknown and malformed ids are 404 not_found, with the deprecation headers', async (t) => {
      const app = await startApp(t, { backend })
      for (const id of [
        '999',
        '0',
        '-1',
        'abc',
        '1.0',
        '1e3',
        '9223372036854775807',
        '9223372036854775808',
        '99999999999999999999999',
        '%20',
        '%00',
        '01x'
      ]) {
        const response = await app.fetch(`/v1/pets/${id}`)
        await assertError(response, 'not_found')
        assertDeprecationHeaders(app, response)
      }
    })

    test('401 still carries the deprecation headers', async (t) => {
      const app = await startApp(t, { backend })
      const response = await app.fetch('/v1/pets/1', { key: null })
      await assertError(response, 'unauthorized')
      assertDeprecationHeaders(app, response)
    })

    test('from the sunset on, 410 gone (by the injected clock)', async (t) => {
      const app = await startApp(t, { backend, now: new Date('2030-12-04T23:59:59Z') })
      const created = (await (await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 3 })).json()) as { id: number }
      assert.equal((await app.fetch(`/v1/pets/${created.id}`)).status, 200)
      app.clock.set(new Date('2030-12-05T00:00:00Z'))
      const gone = await app.fetch(`/v1/pets/${created.id}`)
      await assertError(gone, 'gone', 'GET /pets')
      assertDeprecationHeaders(app, gone)
      await assertError(await app.fetch('/v1/pets/12345'), 'gone')
      assert.equal((await app.fetch('/v1/pets')).status, 200, 'the replacement still answers')
    })
  })
}
