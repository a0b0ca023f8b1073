import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay, sleep } from '../src/retry-policy.ts'

describe('retry policy', () => {
  test('full jitter: a uniform draw below min(maxDelay, base * 2^retry), never below Retry-After', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 900_000 }), { nil: undefined }),
        (retry, random, retryAfterMs) => {
          const delay = retryDelay(retry, retryAfterMs, DEFAULT_RETRY_POLICY, () => random)
          const ceiling = Math.min(DEFAULT_RETRY_POLICY.maxDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** retry)
          assert.ok(delay >= (retryAfterMs ?? 0))
          assert.ok(delay < Math.max(ceiling, (retryAfterMs ?? 0) + 1))
          assert.ok(Number.isInteger(delay))
        }
      )
    )
    assert.deepEqual(
      [0, 1, 2, 3, 10].map((retry) => retryDelay(retry, undefined, DEFAULT_RETRY_POLICY, () => 0.5)),
      [250, 500, 1000, 2000, 10_000]
    )
    assert.equal(
      retryDelay(0, 50_000, DEFAULT_RETRY_POLICY, () => 0.99),
      50_000
    )
  })

  test('Retry-After: delay-seconds or an HTTP-date; nothing for junk', () => {
    const now = Date.parse('2026-06-15T12:00:10Z')
    assert.equal(parseRetryAfter('50', now), 50_000)
    assert.equal(parseRetryAfter(' 0 ', now), 0)
    assert.equal(parseRetryAfter('Mon, 15 Jun 2026 12:01:00 GMT', now), 50_000)
    assert.equal(parseRetryAfter('Mon, 15 Jun 2026 12:00:00 GMT', now), 0)
    assert.equal(parseRetryAfter(null, now), undefined)
    assert.equal(parseRetryAfter('soon', now), undefined)
    assert.equal(parseRetryAfter('-5', now), undefined)
  })

  test('sleep waits, and an abort ends it at once with the reason', async () => {
    // The sleep itself is under test: 20 ms of real time passing is the point.
    const started = Date.now()
    await sleep(20)
    assert.ok(Date.now() - started >= 19)
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort(new Error('stop'))
    await assert.rejects(waiting, { message: 'stop' })
    await assert.rejects(sleep(60_000, AbortSignal.abort(new Error('already'))), { message: 'already' })
    // The reason as given, even when it is not an Error (as fetch does).
    await assert.rejects(sleep(60_000, AbortSignal.abort('not an Error')), (reason) => reason === 'not an Error')
  })

  test("sleep outlasts setTimeout's longest delay (2^31 - 1 ms, about 24.8 days): a month ends on time, not at once", async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const timers = t.mock.method(globalThis, 'setTimeout')
    const month = 31 * 86_400_000
    let woke = false
    const sleeping = sleep(month).then(() => {
      woke = true
    })
    // The mocked timers run a timer armed by another only on a later tick, as a real loop would.
    t.mock.timers.tick(2 ** 31 - 1)
    t.mock.timers.tick(month - 2 ** 31)
    await Promise.resolve()
    assert.equal(woke, false)
    t.mock.timers.tick(1)
    await sleeping
    // The real setTimeout would fire a longer delay after 1 ms; the mocked one does not, so look at what was asked.
    assert.deepEqual(
      timers.mock.calls.map((call) => call.arguments[1]),
      [2 ** 31 - 1, month - (2 ** 31 - 1)]
    )
  })
})
