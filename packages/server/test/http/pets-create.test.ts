import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, test } from 'node:test'
import { assertError } from '../helpers/assertions.ts'
import { postJson, startApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'

for (const { backend, skip } of await suiteBackends()) {
  describe(`POST /v1/pets [${backend.name}]`, { skip }, () => {
    test('201 with the Pet, its id, the default status and Location', async (t) => {
      const app = await startApp(t, { backend })
      const response = await postJson(app, '/v1/pets', { name: 'Rex', categoryId: 7 })
      assert.equal(response.status, 201)
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
      const pet = (await response.json()) as { id: number }
      assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' })
      assert.ok(Number.isSafeInteger(pet.id) && pet.id >= 1)
      assert.equal(response.headers.get('location'), `${app.base}/pets/${pet.id}`)
      const again = (await (await postJson(app, '/v1/pets', { name: 'Tom', categoryId: 7, status: 'sold' })).json()) as {
        id: number
        status: string
      }
      assert.ok(again.id > pet.id)
      assert.equal(again.status, 'sold')
    })

    test('int64 categoryId round-trips exactly on create, list and get (raw text)', async (t) => {
      const app = await startApp(t, { backend })
      for (const value of ['9223372036854775807', '9007199254740993', '9007199254740992', '1']) {
        const response = await postJson(app, '/v1/pets', `{"name":"big","categoryId":${value}}`)
        const text = await response.text()
        assert.equal(response.status, 201, text)
        assert.match(text, new RegExp(`"categoryId":${value}[,}]`))
        const id = /"id":(\d+)/.exec(text)![1]
        const got = await (await app.fetch(`/v1/pets/${id}`)).text()
        assert.match(got, new RegExp(`"categoryId":${value}[,}]`))
        const listed = await (await app.fetch('/v1/pets?limit=100')).text()
        assert.match(listed, new RegExp(`"id":${id},"name":"big","categoryId":${value}[,}]`))
      }
    })

    test('names: 1 to 200 code points, not only white space, stored as sent', async (t) => {
      const app = await startApp(t, { backend })
      for (const name of ['a', 'x'.repeat(200), '😀'.repeat(200), '  padded  ', 'Ünïcødé \u0000 zero', 'ʕ•ᴥ•ʔ']) {
        const response = await postJson(app, '/v1/pets', { name, categoryId: 1 })
        assert.equal(response.status, 201, name)
        assert.equal(((await response.json()) as { name: string }).name, name)
      }
      for (const name of ['', ' ', '\t\n ', 'x'.repeat(201), '😀'.repeat(201)]) {
        await assertError(
          await postJson(app, '/v1/pets', { name, categoryId: 1 }),
          'validation_failed',
          'name must be a string of 1 to 200 characters'
        )
      }
      for (const name of [5, null, true, ['a'], { a: 1 }]) {
        await assertError(await postJson(app, '/v1/pets', { name, categoryId: 1 }), 'validation_failed', 'name')
      }
    })

    test('categoryId must be an int64 from 1: no zero, negatives, fractions, overflow, strings or null', async (t) => {
      const app = await startApp(t, { backend })
      for (const literal of [
        '0',
        '-1',
        '1.5',
        '9223372036854775808',
        '18446744073709551616',
        '1e400',
        '1e19',
        '"1"',
        'null',
        'true',
        '[]',
        '{}',
        '-9223372036854775808'
      ]) {
        await assertError(
          await postJson(app, '/v1/pets', `{"name":"n","categoryId":${literal}}`),
          'validation_failed',
          'categoryId must be an integer from 1 to 9223372036854775807'
        )
      }
    })

    test('status must be one of the three states', async (t) => {
      const app = await startApp(t, { backend })
      for (const status of ['lost', 'AVAILABLE', '', null, 1]) {
        await assertError(
          await postJson(app, '/v1/pets', { name: 'n', categoryId: 1, status }),
          'validation_failed',
          'status must be one of available, pending, sold'
        )
      }
    })

    test('missing fields and unknown properties are named', async (t) => {
      const app = await startApp(t, { backend })
      const missing = await assertError(await postJson(app, '/v1/pets', {}), 'validation_failed')
      assert.match(missing.message, /name is required/)
      assert.match(missing.message, /categoryId is required/)
      await assertError(await postJson(app, '/v1/pets', { name: 'n', categoryId: 1, id: 5 }), 'validation_failed', 'unknown property "id"')
      await assertError(
        await postJson(app, '/v1/pets', { name: 'n', categoryId: 1, __proto__x: 1, tags: [] }),
        'validation_failed',
        '"tags"'
      )
    })

    test('a body that is not a JSON object is bad_request', async (t) => {
      const app = await startApp(t, { backend })
      for (const body of ['{', '{"name":', 'nope', '[]', '[1]', '"text"', '42', 'null', ' ', '{"a":1}x', '['.repeat(5000)]) {
        await assertError(await postJson(app, '/v1/pets', body), 'bad_request')
      }
      // A __proto__ key is an own property after JSON.parse: refused as unknown, never merged into a prototype.
      await assertError(
        await postJson(app, '/v1/pets', '{"__proto__":{"x":1},"name":"n","categoryId":1}'),
        'validation_failed',
        '"__proto__"'
      )
    })

    test('only application/json is accepted (415), charset allowed', async (t) => {
      const app = await startApp(t, { backend })
      const body = JSON.stringify({ name: 'n', categoryId: 1 })
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        await assertError(
          await app.fetch('/v1/pets', { method: 'POST', headers: { 'content-type': type }, body }),
          'unsupported_media_type'
        )
      }
      await assertError(await app.fetch('/v1/pets', { method: 'POST' }), 'unsupported_media_type')
      await assertError(
        await app.fetch('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json; charset=latin1' }, body }),
        'unsupported_media_type',
        'UTF-8'
      )
      assert.equal(
        (await app.fetch('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json; charset="UTF-8"' }, body })).status,
        201
      )
      const ok = await app.fetch('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body })
      assert.equal(ok.status, 201)
    })

    test('bodies over 16 KiB are 413; 16 KiB exactly is read', async (t) => {
      const app = await startApp(t, { backend })
      const padded = (size: number) => {
        const base = JSON.stringify({ name: 'n', categoryId: 1 })
        return base.slice(0, -1) + ' '.repeat(size - base.length) + '}'
      }
      assert.equal((await postJson(app, '/v1/pets', padded(16 * 1024))).status, 201)
      await assertError(await postJson(app, '/v1/pets', padded(16 * 1024 + 1)), 'payload_too_large')
      await assertError(await postJson(app, '/v1/pets', padded(1024 * 1024)), 'payload_too_large')
    })

    test('a chunked body over the limit is 413 too', async (t) => {
      const app = await startApp(t, { backend })
      const key = await app.key({ plan: 'pro' })
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${app.origin}/v1/pets`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'transfer-encoding': 'chunked' }
          },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          }
        )
        req.on('error', reject)
        req.write('{"name":"' + 'x'.repeat(10_000))
        req.end('x'.repeat(10_000) + '","categoryId":1}')
      })
      assert.equal(status, 413)
    })
  })
}
