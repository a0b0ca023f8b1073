import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isPending } from '../../src/base/maybe.ts'
import { PlanBook } from '../../src/domain/plans/book.ts'
import type { PlanRecord } from '../../src/storage/plans/types.ts'

const plan = (id: string, perMinute: number | null, perDay: number | null, perMonth: number | null = null): PlanRecord => ({
  id,
  name: id,
  perMinute,
  perDay,
  perMonth,
  createdAt: 0
})
const key = (plan: string, perMinute: number | null = null, perDay: number | null = null, perMonth: number | null = null) => ({
  plan,
  perMinute,
  perDay,
  perMonth
})

/** The plans a book reads, changed by the test between reads, and how many reads it made. */
function table(...initial: PlanRecord[]) {
  let plans = initial
  let reads = 0
  let failing: Error | undefined
  return {
    store: {
      list: async () => {
        reads++
        if (failing !== undefined) throw failing
        return plans.map((p) => ({ ...p, customers: 0 }))
      }
    },
    set: (...next: PlanRecord[]) => (plans = next),
    fail: (error: Error | undefined) => (failing = error),
    reads: () => reads
  }
}

test("a known plan's limits come at once, without a promise; a key's own numbers win over the plan's", async () => {
  const plans = table(plan('free', 60, 1000), plan('enterprise', null, null))
  const book = new PlanBook(plans.store)
  await book.refresh()
  const free = book.limitsOf(key('free'))
  assert.equal(isPending(free), false)
  assert.deepEqual(free, { perMinute: 60, perDay: 1000, perMonth: null })
  assert.deepEqual(book.limitsOf(key('free', 5)), { perMinute: 5, perDay: 1000, perMonth: null })
  assert.deepEqual(book.limitsOf(key('enterprise', 7, 70)), { perMinute: 7, perDay: 70, perMonth: null })
  assert.equal(book.limitsOf(key('free')), free, 'the same object each time: the policy text is spelled once per pair')
  assert.throws(() => book.limitsOf(key('enterprise')), /custom plan enterprise has no limits of its own/)
  assert.equal(plans.reads(), 1)
})

test("the monthly quota goes with the numbers: a customer's own with numbers of its own (null: none), else its plan's", async () => {
  const plans = table(plan('metered', 300, 10_000, 100_000), plan('free', 60, 1000), plan('enterprise', null, null))
  const book = new PlanBook(plans.store)
  await book.refresh()
  const metered = book.limitsOf(key('metered'))
  assert.deepEqual(metered, { perMinute: 300, perDay: 10_000, perMonth: 100_000 }, "no numbers of its own: the plan's quota")
  assert.equal(book.limitsOf(key('metered')), metered, "the plan's object itself: nothing made per call")
  assert.equal(book.limitsOf(key('metered', null, null, 5)), metered, 'a quota of its own is not in force without numbers of its own')
  assert.deepEqual(book.limitsOf(key('metered', 10, 100)), { perMinute: 10, perDay: 100, perMonth: null }, 'own numbers, no quota: none')
  assert.deepEqual(book.limitsOf(key('metered', 10, 100, 5000)), { perMinute: 10, perDay: 100, perMonth: 5000 })
  assert.deepEqual(
    book.limitsOf(key('metered', 10, null, 5000)),
    { perMinute: 10, perDay: 10_000, perMonth: 5000 },
    'one number of its own'
  )
  assert.deepEqual(book.limitsOf(key('free', 10, 100, 5000)), { perMinute: 10, perDay: 100, perMonth: 5000 })
  assert.deepEqual(book.limitsOf(key('enterprise', 7, 70, 1_000_000_000_000)), { perMinute: 7, perDay: 70, perMonth: 1_000_000_000_000 })

  plans.set(plan('metered', 300, 10_000, 200_000), plan('free', 60, 1000))
  await book.refresh()
  assert.deepEqual(book.limitsOf(key('metered')), { perMinute: 300, perDay: 10_000, perMonth: 200_000 }, 'a new quota: a new object')
  const again = book.limitsOf(key('metered'))
  await book.refresh()
  assert.equal(book.limitsOf(key('metered')), again, 'an unchanged plan keeps its object')
  plans.set(plan('metered', 300, 10_000, null), plan('free', 60, 1000))
  await book.refresh()
  assert.notEqual(book.limitsOf(key('metered')), again)
  assert.deepEqual(book.limitsOf(key('metered')), { perMinute: 300, perDay: 10_000, perMonth: null }, 'the quota removed')
})

test('a plan not seen yet is read for, once for every key that asks meanwhile; a plan that stays unknown is an error', async () => {
  const plans = table(plan('free', 60, 1000))
  const book = new PlanBook(plans.store)
  await book.refresh()
  plans.set(plan('free', 60, 1000), plan('startup', 120, 5000))
  const [a, b] = [book.limitsOf(key('startup')), book.limitsOf(key('startup'))]
  assert.ok(isPending(a) && isPending(b))
  assert.deepEqual(await Promise.all([a, b]), [
    { perMinute: 120, perDay: 5000, perMonth: null },
    { perMinute: 120, perDay: 5000, perMonth: null }
  ])
  assert.equal(plans.reads(), 2, 'one read for both')
  await assert.rejects(async () => book.limitsOf(key('gone')), /the key's plan "gone" is not in the plans table/)
})

test('a read that fails keeps the plans read before, and is the error of a key that needed it', async () => {
  const plans = table(plan('free', 60, 1000))
  const book = new PlanBook(plans.store)
  await book.refresh()
  plans.fail(new Error('database unreachable'))
  await assert.rejects(book.refresh(), /database unreachable/)
  assert.deepEqual(book.limitsOf(key('free')), { perMinute: 60, perDay: 1000, perMonth: null })
  await assert.rejects(async () => book.limitsOf(key('startup')), /database unreachable/)
  plans.fail(undefined)
  plans.set(plan('free', 30, 500))
  await book.refresh()
  assert.deepEqual(book.limitsOf(key('free')), { perMinute: 30, perDay: 500, perMonth: null }, 'a changed plan after the next read')
})

test('start reads the plans, and a database down at start does not stop the process', async () => {
  const plans = table(plan('free', 60, 1000))
  plans.fail(new Error('database unreachable'))
  const failures: unknown[] = []
  const book = new PlanBook(plans.store)
  await book.start((error) => failures.push(error))
  book.stop()
  assert.equal(failures.length, 1)
  plans.fail(undefined)
  assert.deepEqual(await book.limitsOf(key('free')), { perMinute: 60, perDay: 1000, perMonth: null }, 'read when first needed')
})
