import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import type { Customer, Key } from '@animal-store/contract'
import { osUser } from '../../src/cli/os-user.ts'
import { assertError } from '../helpers/assertions.ts'
import { openStorage } from '../helpers/backends.ts'
import { killServes, runCli, startServe } from '../helpers/cli.ts'
import { assertRefused, json, migrated, ok, words, type Args, type Env } from '../helpers/cli-steps.ts'
import { freePort } from '../helpers/temp.ts'
import { roomInMinute, until } from '../helpers/wait.ts'

// `animal-store customers ...` and `keys create --customer` as an operator runs them: real CLI
// processes against a temporary SQLite file, the audit log read from it afterwards.

const UNKNOWN = 'cus_0000000000000000'

const customers = (env: Env) => json<Customer[]>(env, 'customers list --json')
const keys = (env: Env) => json<Key[]>(env, 'keys list --json')

async function audit(t: TestContext, env: Env) {
  const storage = await openStorage(t, env)
  return (await storage.audit.page({ limit: 100 })).reverse()
}

describe('animal-store customers', { concurrency: true }, () => {
  test('create and list it; two keys with --customer; a new plan reaches both keys', async (t) => {
    const env = await migrated(t)
    const create = ['customers', 'create', '--name', 'Acme Corp', '--plan', 'free', '--external-id', 'acme-1', '--json']
    const { id: _, createdAt, ...acmeFields } = await json<Customer>(env, create)
    const acme = (await customers(env))[0]!
    assert.match(acme.id, /^cus_[0-9A-Za-z]{16}$/)
    const free = { perMinute: 60, perDay: 1000, perMonth: null }
    assert.deepEqual(acmeFields, {
      ...{ name: 'Acme Corp', externalId: 'acme-1', plan: 'free', limits: free, ownLimits: false },
      ...{ keys: 0, bannedUntil: null, usage: { minute: 0, day: 0, month: 0 } }
    })
    assert.deepEqual(acme, { id: acme.id, createdAt, ...acmeFields }, 'list --json shows it as create --json did')
    const line = await ok(env, 'customers create --name Big --plan enterprise --per-minute 5 --per-day 50')
    const big = /^Created customer (cus_\w{16}) \(Big; plan enterprise, own limits 5\/min, 50\/day\)\.\n$/.exec(line)?.[1]
    assert.ok(big !== undefined, line)
    const listed = await customers(env)
    assert.deepEqual(
      listed.map((c) => [c.id, c.plan, c.limits, c.ownLimits]),
      [
        [big, 'enterprise', { perMinute: 5, perDay: 50, perMonth: null }, true],
        [acme.id, 'free', free, false]
      ],
      'newest first'
    )
    const table = (await ok(env, 'customers list')).trimEnd().split('\n')
    assert.match(table[0]!, /^ID\s+NAME\s+EXTERNAL ID\s+PLAN\s+LIMITS\s+PER MONTH\s+USED\s+KEYS\s+STATE$/)
    const row = [acme.id, 'Acme Corp', 'acme-1', 'free', '60/min 1000/day', '-', '0/min 0/day', '0', 'active']
    assert.deepEqual(table[2]!.split(/\s{2,}/), row)
    assert.deepEqual(table[1]!.split(/\s{2,}/).slice(2, 5), ['-', 'enterprise', '5/min 50/day (own)'])

    const first = await json<Key>(env, `keys create --customer ${acme.id} --name production --json`)
    const second = await json<Key>(env, `keys create --customer ${acme.id} --scopes pets:read --json`)
    for (const key of [first, second]) assert.deepEqual([key.customerId, key.plan, key.limits], [acme.id, 'free', acme.limits])
    assert.deepEqual(second.scopes, ['pets:read'])
    assert.equal((await customers(env)).find((c) => c.id === acme.id)!.keys, 2)
    const moved = await json<Customer>(env, `customers update ${acme.id} --plan pro --name Acme --json`)
    const pro = { perMinute: 300, perDay: 10000, perMonth: null }
    assert.deepEqual([moved.name, moved.plan, moved.limits, moved.keys], ['Acme', 'pro', pro, 2])
    assert.deepEqual(
      (await keys(env)).filter((key) => key.customerId === acme.id).map((key) => [key.id, key.plan, key.limits]),
      [first, second].map((key) => [key.id, 'pro', pro])
    )
    const own = await json<Customer>(env, `customers update ${acme.id} --per-minute 7 --per-day 70 --no-external-id --json`)
    assert.deepEqual([own.limits, own.ownLimits, own.externalId], [{ perMinute: 7, perDay: 70, perMonth: null }, true, null])
    assert.equal(
      await ok(env, `customers update ${acme.id} --plan-limits --external-id acme-2`),
      `Updated customer ${acme.id} (Acme; plan pro, 300/min, 10000/day; external id acme-2); every instance applies it within 5 seconds.\n`
    )
    assert.match(await ok(env, `customers unban ${acme.id}`), new RegExp(`^Lifted any ban on customer ${acme.id} `))
  })

  test('bad input is one line on stderr, exit 2, and changes nothing', async (t) => {
    const env = await migrated(t)
    const { id } = await json<Customer>(env, 'customers create --name Acme --plan free --external-id acme-1 --json')
    const [customersBefore, keysBefore, auditBefore] = [await customers(env), await keys(env), await audit(t, env)]
    const cases: Array<[Args, RegExp]> = [
      ['customers create --name X --plan gold', /--plan must be one of business, enterprise, free, pro \(got "gold"\)/],
      ['customers create --name X --plan free --per-month 5', /--per-month needs --per-minute and --per-day too/],
      ['customers create --name X --plan enterprise', /custom plan enterprise needs --per-minute and --per-day/],
      ['customers create --name X --plan free --external-id acme-1', /another customer has --external-id "acme-1"/],
      [['customers', 'create', '--name', '', '--plan', 'free'], /--name must be 1 to 200 characters/],
      ['customers create --plan free', /customers create needs --name/],
      ['customers create --name X', /customers create needs --plan/],
      ['customers create --name X --plan free --per-minute abc --per-day 5', /--per-minute must be a whole number \(got "abc"\)/],
      ['customers create --name X --plan free --per-minute 0 --per-day 5', /--per-minute must be a whole number from 1/],
      ['customers create --name X --plan free --plan-limits', /customers create does not take --plan-limits/],
      [`customers update ${UNKNOWN} --name Y`, /no customer has id "cus_0000000000000000"/],
      ['customers update nope --plan pro', /no customer has id "nope"/],
      [`customers unban ${UNKNOWN}`, /no customer has id/],
      [`customers update ${id} --plan gold`, /--plan must be one of/],
      [`customers update ${id} --plan enterprise`, /custom plan enterprise needs --per-minute and --per-day/],
      [`customers update ${id}`, /customers update needs something to change/],
      [`customers update ${id} --per-minute 5`, /--per-minute needs --per-day too/],
      [`customers update ${id} --external-id a --no-external-id`, /either --external-id or --no-external-id/],
      [`customers update ${id} --plan-limits --per-minute 1 --per-day 2`, /or --plan-limits .*not both/],
      ['customers update --name Y', /customers update takes exactly one customer id/],
      ['customers list extra', /customers list takes no positional arguments/],
      ['customers frobnicate', /unknown customers command "frobnicate"/],
      [`keys create --customer ${id} --plan free`, /give --customer or --plan, not both/],
      [`keys create --customer ${id} --per-minute 5`, /give --customer or --plan, not both/],
      [`keys create --customer ${UNKNOWN}`, /--customer names no customer \(got "cus_0000000000000000"\)/],
      ['keys create --customer nope', /--customer must be a customer's id/],
      [`keys create --customer ${id} --scopes pets:admin`, /--scopes must be distinct scopes/],
      ['keys create', /keys create needs --customer <customer id> .* or --plan <plan id>/]
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(words(args), env)))
    results.forEach((result, i) => assertRefused(result, cases[i]![1], words(cases[i]![0]).join(' ')))
    assert.deepEqual(await customers(env), customersBefore)
    assert.deepEqual(await keys(env), keysBefore)
    assert.deepEqual(await audit(t, env), auditBefore)
  })

  test('every change is audited by the OS user at the CLI', async (t) => {
    const env = await migrated(t)
    const { id } = await json<Customer>(env, 'customers create --name Acme --plan free --json')
    await ok(env, ['customers', 'update', id, '--plan', 'pro', '--name', 'Acme 2'])
    await ok(env, `customers unban ${id}`)
    const actor = osUser()
    const entries = (await audit(t, env)).filter((entry) => entry.target.type === 'customer')
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor, e.target]),
      [
        ['customer.create', actor, { type: 'customer', id, name: 'Acme' }],
        ['customer.update', actor, { type: 'customer', id, name: 'Acme 2' }],
        ['customer.unban', actor, { type: 'customer', id, name: 'Acme 2' }]
      ]
    )
    assert.deepEqual(entries[1]!.changes, { name: { from: 'Acme', to: 'Acme 2' }, plan: { from: 'free', to: 'pro' } })
  })

  test('unban lifts the ban all the customer’s keys share, on a serving instance', async (t) => {
    const env = await migrated(t)
    const port = String(await freePort())
    const serving = await startServe({ ...env, PORT: port }, `http://127.0.0.1:${port}`)
    t.after(() => killServes([serving]))
    const { id } = await json<Customer>(env, 'customers create --name Tight --plan enterprise --per-minute 1 --per-day 100 --json')
    const [a, b] = await Promise.all([0, 1].map(() => json<Key & { key: string }>(env, `keys create --customer ${id} --json`)))
    const call = (key: string) => fetch(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    await roomInMinute()
    assert.equal((await call(a!.key)).status, 200)
    await assertError(await call(a!.key), 'rate_limited')
    // One quota and one ban for both keys: the other key is banned by the first one's refusals.
    await assertError(await call(b!.key), 'api_key_banned')
    const banned = (await customers(env)).find((c) => c.id === id)!
    assert.ok(banned.bannedUntil !== null && Date.parse(banned.bannedUntil) > Date.now(), JSON.stringify(banned))
    const row = (await ok(env, 'customers list')).split('\n').find((l) => l.startsWith(id))
    assert.match(row ?? '', /banned until \S+Z$/)
    await ok(env, `customers unban ${id}`)
    assert.equal((await customers(env)).find((c) => c.id === id)!.bannedUntil, null)
    // Still out of this minute's one request, but no longer banned.
    const code = async (key: string) => ((await (await call(key)).json()) as { code?: string }).code
    await until(async () => (await code(b!.key)) === 'rate_limited', { timeoutMs: 5000, intervalMs: 100, what: 'the ban to lift' })
  })

  test('help: customers --help and help customers print the usage; help lists customers', async () => {
    for (const args of ['customers --help', 'help customers', 'customers update --help']) {
      const result = await runCli(words(args), {})
      assert.equal(result.code, 0, args)
      assert.match(result.stdout, /^Usage: animal-store customers <command>/)
      assert.match(result.stdout, /--plan-limits/)
    }
    const none = await runCli(['customers'], {})
    assert.equal(none.code, 2)
    assert.match(none.stderr, /^animal-store: customers needs a command: list, create, update or unban\n$/)
    assert.match((await runCli(['help'], {})).stdout, /\n {2}customers \.\.\. [^]*--customer <id>/)
    assert.match((await runCli(['help', 'keys'], {})).stdout, /update <id> .*--scopes LIST/)
  })
})
