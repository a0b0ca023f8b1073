import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Customer, Key } from '@animal-store/contract'
import { openStorage } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { assertRefused, json, migrated, ok, words, type Env } from '../helpers/cli-steps.ts'

// `animal-store customers ...` with monthly quotas: a customer's own (with numbers of its own)
// or its plan's (without), as an operator sets them, against a temporary SQLite file.

const customers = (env: Env) => json<Customer[]>(env, 'customers list --json')

describe('animal-store customers: monthly quotas', { concurrency: true }, () => {
  test('its own with numbers of its own: created, changed alone, kept by new numbers, removed; its keys carry it', async (t) => {
    const env = await migrated(t)
    const line = await ok(env, 'customers create --name Acme --plan pro --per-minute 10 --per-day 100 --per-month 1000000000000')
    const id = /^Created customer (cus_\w{16}) \(Acme; plan pro, own limits 10\/min, 100\/day, 1000000000000\/month\)\.\n$/.exec(line)?.[1]
    assert.ok(id !== undefined, line)
    const [acme] = await customers(env)
    assert.deepEqual(
      [acme!.limits, acme!.usage],
      [
        { perMinute: 10, perDay: 100, perMonth: 1_000_000_000_000 },
        { minute: 0, day: 0, month: 0 }
      ]
    )
    const row = (await ok(env, 'customers list')).split('\n')[1]!.split(/\s{2,}/)
    assert.deepEqual(row.slice(4, 7), ['10/min 100/day (own)', '1000000000000', '0/min 0/day 0/month'])
    const key = await json<Key>(env, `keys create --customer ${id} --json`)
    assert.equal(key.limits.perMonth, 1_000_000_000_000)

    const limits = async (args: string) => (await json<Customer>(env, `customers update ${id} ${args} --json`)).limits
    assert.deepEqual(await limits('--per-month 5000'), { perMinute: 10, perDay: 100, perMonth: 5000 }, 'its own numbers stay')
    assert.deepEqual(await limits('--per-minute 20 --per-day 200'), { perMinute: 20, perDay: 200, perMonth: 5000 }, 'its quota stays')
    assert.deepEqual(await limits('--no-monthly-quota'), { perMinute: 20, perDay: 200, perMonth: null })
    assert.deepEqual(await limits('--per-minute 30 --per-day 300 --per-month 7000'), { perMinute: 30, perDay: 300, perMonth: 7000 })
    assert.deepEqual((await json<Key[]>(env, 'keys list --json'))[0]!.limits, { perMinute: 30, perDay: 300, perMonth: 7000 })
    assert.deepEqual(await limits('--plan business'), { perMinute: 1000, perDay: 100000, perMonth: null }, 'a new plan drops all its own')

    const storage = await openStorage(t, env)
    const updates = (await storage.audit.page({ target: id, action: 'customer.update', limit: 10 })).reverse()
    assert.deepEqual(
      updates.map((entry) => entry.changes.perMonth ?? null),
      [{ from: 1_000_000_000_000, to: 5000 }, null, { from: 5000, to: null }, { from: null, to: 7000 }, { from: 7000, to: null }]
    )
  })

  test("its plan's without numbers of its own: the plan's quota applies, and a change of the plan reaches it", async (t) => {
    const env = await migrated(t)
    await ok(env, 'plans create metered --name Metered --per-minute 300 --per-day 10000 --per-month 100000')
    const onPlan = await json<Customer>(env, 'customers create --name OnPlan --plan metered --json')
    assert.deepEqual([onPlan.limits, onPlan.ownLimits], [{ perMinute: 300, perDay: 10000, perMonth: 100000 }, false])
    const key = await json<Key>(env, `keys create --customer ${onPlan.id} --json`)
    assert.equal(key.limits.perMonth, 100000)
    await ok(env, 'plans update metered --per-month 200000')
    assert.equal((await customers(env))[0]!.limits.perMonth, 200000)
    assert.equal((await json<Key[]>(env, 'keys list --json'))[0]!.limits.perMonth, 200000)
    const keyRow = (await ok(env, 'keys list')).split('\n').find((line) => line.startsWith(key.id))!
    assert.match(keyRow, /300\/min 10000\/day 200000\/month .* 0\/min 0\/day 0\/month /, 'the table shows the quota and the month used')

    const own = await json<Customer>(env, 'customers create --name Own --plan metered --per-minute 5 --per-day 50 --json')
    assert.deepEqual(
      own.limits,
      { perMinute: 5, perDay: 50, perMonth: null },
      "numbers of its own without --per-month: none, not the plan's"
    )
    const back = await json<Customer>(env, `customers update ${own.id} --plan-limits --json`)
    assert.deepEqual([back.limits, back.ownLimits], [{ perMinute: 300, perDay: 10000, perMonth: 200000 }, false])
    assert.match(await ok(env, `customers update ${own.id} --name Own2`), /\(Own2; plan metered, 300\/min, 10000\/day, 200000\/month\)/)
  })

  test('bad input is one line on stderr, exit 2, and changes nothing', async (t) => {
    const env = await migrated(t)
    const { id } = await json<Customer>(env, 'customers create --name Acme --plan free --per-minute 1 --per-day 2 --per-month 3 --json')
    const { id: onPlan } = await json<Customer>(env, 'customers create --name OnPlan --plan free --json')
    const before = await customers(env)
    const create = 'customers create --name X --plan free --per-minute 10 --per-day 100'
    const range = /--per-month must be a whole number from 1 to 1000000000000/
    const cases: Array<[string, RegExp]> = [
      [
        `${create} --per-month 0`,
        /^animal-store: --per-month must be a whole number from 1 to 1000000000000 \(got 0\), or left out for none\n$/
      ],
      [`${create} --per-month 1000000000001`, range],
      [`${create} --per-month 1.5`, /--per-month must be a whole number \(got "1.5"\)/],
      [`${create} --per-month "5"`, /--per-month must be a whole number \(got "\\"5\\""\)/],
      [`${create} --no-monthly-quota`, /customers create does not take --no-monthly-quota/],
      ['customers create --name X --plan free --per-month 5', /--per-month needs --per-minute and --per-day too/],
      [`customers update ${id} --per-month 0`, /^animal-store: --per-month must be .* \(got 0\), or --no-monthly-quota for none\n$/],
      [`customers update ${id} --per-minute 1 --per-day 2 --per-month 1000000000001`, range],
      [`customers update ${id} --per-month 5 --no-monthly-quota`, /either --per-month or --no-monthly-quota, not both/],
      [`customers update ${id} --plan-limits --per-month 5`, /or --plan-limits .*not both/],
      [`customers update ${id} --plan pro --per-month 5`, /--per-month needs --per-minute and --per-day too: a new --plan drops/],
      [`customers update ${onPlan} --per-month 5`, /runs under the limits of its plan free, monthly quota included/],
      [`customers update ${onPlan} --no-monthly-quota`, /runs under the limits of its plan free/],
      ['customers update cus_0000000000000000 --per-month 5', /no customer has id "cus_0000000000000000"/]
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(words(args), env)))
    results.forEach((result, i) => assertRefused(result, cases[i]![1], cases[i]![0]))
    assert.deepEqual(await customers(env), before)
  })

  test('help: no refusal of --per-month is left, --no-monthly-quota is there', async () => {
    const { stdout } = await runCli(['customers', '--help'], {})
    assert.match(stdout, /--per-month N \| --no-monthly-quota/)
    assert.doesNotMatch(stdout, /not available/)
  })
})
