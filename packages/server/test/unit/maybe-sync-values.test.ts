import assert from 'node:assert/strict'
import { test } from 'node:test'
import { andThen, isPending } from '../../src/base/maybe.ts'

test('a ready value is continued at once, without a promise', () => {
  const result = andThen(20, (n) => n + 1)
  assert.equal(result, 21)
})

test('a promise is continued once it settles', async () => {
  const result = andThen(Promise.resolve(20), (n) => n + 1)
  assert.ok(result instanceof Promise)
  assert.equal(await result, 21)
})

test('a rejection skips the continuation and goes to onRejected', async () => {
  let continued = false
  const result = andThen(
    Promise.reject(new Error('down')),
    () => {
      continued = true
      return 'ok'
    },
    (error) => `handled: ${(error as Error).message}`
  )
  assert.equal(await result, 'handled: down')
  assert.equal(continued, false)
})

test('a ready continuation may return a promise, and a throw in it is the caller’s at once', async () => {
  assert.equal(await andThen(1, (n) => Promise.resolve(n * 2)), 2)
  assert.throws(
    () =>
      andThen(1, () => {
        throw new Error('refused')
      }),
    /refused/
  )
})

test('isPending tells a promise from a ready value, a ready undefined included', () => {
  assert.equal(isPending(Promise.resolve(1)), true)
  assert.equal(isPending(1), false)
  assert.equal(isPending(undefined), false)
})
