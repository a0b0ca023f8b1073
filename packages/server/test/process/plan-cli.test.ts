import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import type { Plan } from '@animal-store/contract'
import { osUser } from '../../src/cli/os-user.ts'
import { backendSkip, openStorage, postgresBackend, sqliteBackend } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { assertRefused, json, migrated, ok } from '../helpers/cli-steps.ts'

// `animal-store plans ...` as an operator runs it: real CLI processes against a real database,
// the audit log read from the database afterwards.

const SEEDED = [
  { id: 'business', name: 'Business', limits: { perMinute: 1000, perDay: 100000, perMonth: null }, customers: 0 },
  { id: 'enterprise', name: 'Enterprise', limits: null, customers: 0 },
  { id: 'free', name: 'Free', limits: { perMinute: 60, perDay: 1000, perMonth: null }, customers: 0 },
  { id: 'pro', name: 'Pro', limits: { perMinute: 300, perDay: 10000, perMonth: null }, customers: 0 }
]

const plans = (...args: string[]) => ['plans', ...args]

const list = (env: Record<string, string>) => json<Plan[]>(env, plans('list', '--json'))

/** The plans without their creation times (the seed's depends on when the database was made). */
const withoutTimes = (all: Plan[]) => all.map(({ createdAt: _, ...rest }) => rest)

async function auditOfPlans(t: TestContext, env: Record<string, string>) {
  const storage = await openStorage(t, env)
  const entries = await storage.audit.page({ limit: 100 })
  return entries.filter((e) => e.target.type === 'plan').reverse()
}

describe('animal-store plans on sqlite', { concurrency: true }, () => {
  test('list shows the four seeded plans, as a table and as JSON', async (t) => {
    const env = await migrated(t, sqliteBackend)
    const all = await list(env)
    assert.deepEqual(withoutTimes(all), SEEDED)
    for (const plan of all) assert.match(plan.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const text = await ok(env, plans('list'))
    const lines = text.trimEnd().split('\n')
    assert.match(lines[0]!, /^ID\s+NAME\s+PER MINUTE\s+PER DAY\s+PER MONTH\s+CUSTOMERS$/)
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/\s{2,}/)),
      [
        ['business', 'Business', '1000', '100000', '-', '0'],
        ['enterprise', 'Enterprise', 'custom', 'custom', 'custom', '0'],
        ['free', 'Free', '60', '1000', '-', '0'],
        ['pro', 'Pro', '300', '10000', '-', '0']
      ]
    )
  })

  test('create, then list and --json; a taken id is refused and changes nothing', async (t) => {
    const env = await migrated(t, sqliteBackend)
    const team = await json<Plan>(env, plans('create', 'team', '--name', 'Team plan', '--per-minute', '100', '--per-day', '5000', '--json'))
    assert.deepEqual(withoutTimes([team]), [
      { id: 'team', name: 'Team plan', limits: { perMinute: 100, perDay: 5000, perMonth: null }, customers: 0 }
    ])
    const custom = await ok(env, plans('create', 'partner', '--name', 'Partner', '--custom'))
    assert.match(custom, /^Created plan partner \(Partner; custom[^\n]*\)\.\n$/)
    const text = await ok(env, plans('create', 'starter', '--name', 'Starter', '--per-minute', '10', '--per-day', '100'))
    assert.equal(text, 'Created plan starter (Starter; 10/min, 100/day, no monthly quota).\n')
    const metered = await ok(
      env,
      plans('create', 'metered', '--name', 'Metered', '--per-minute', '10', '--per-day', '100', '--per-month', '2000')
    )
    assert.equal(metered, 'Created plan metered (Metered; 10/min, 100/day, 2000/month).\n')

    const all = await list(env)
    assert.deepEqual(
      all.map((p) => p.id),
      ['business', 'enterprise', 'free', 'metered', 'partner', 'pro', 'starter', 'team']
    )
    assert.deepEqual(all.find((p) => p.id === 'metered')!.limits, { perMinute: 10, perDay: 100, perMonth: 2000 })
    assert.deepEqual(
      all.find((p) => p.id === 'team'),
      team
    )
    assert.equal(all.find((p) => p.id === 'partner')!.limits, null)
    const table = await ok(env, plans('list'))
    assert.match(table, /\nteam\s+Team plan\s+100\s+5000\s+-\s+0\n/)
    assert.match(table, /\nmetered\s+Metered\s+10\s+100\s+2000\s+0\n/)

    for (const args of [
      plans('create', 'team', '--name', 'Other', '--custom'),
      plans('create', 'free', '--name', 'Free again', '--per-minute', '1', '--per-day', '1')
    ])
      assertRefused(await runCli(args, env), /exists already/, args.join(' '))
    assert.deepEqual(await list(env), all)
  })

  test('bad input is one line, exit 2, and creates nothing', async (t) => {
    const env = await migrated(t, sqliteBackend)
    const cases: Array<[string[], RegExp]> = [
      [plans('create', 'Bad', '--name', 'X', '--custom'), /the plan id must be 1 to 32 lower-case letters/],
      [plans('create', '9lives', '--name', 'X', '--custom'), /the plan id must be/],
      [plans('create', 'a'.repeat(33), '--name', 'X', '--custom'), /the plan id must be/],
      [plans('create', 'x', '--custom'), /--name/],
      [plans('create', 'x', '--name', '', '--custom'), /--name must be 1 to 100 characters/],
      [plans('create', 'x', '--name', 'X'), /--per-minute N and --per-day N, or --custom/],
      [plans('create', 'x', '--name', 'X', '--per-minute', '5'), /--per-minute N and --per-day N/],
      [plans('create', 'x', '--name', 'X', '--per-minute', 'abc', '--per-day', '5'), /--per-minute must be a whole number \(got "abc"\)/],
      [plans('create', 'x', '--name', 'X', '--per-minute', '1.5', '--per-day', '5'), /--per-minute must be a whole number/],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '0', '--per-day', '5'),
        /--per-minute must be a whole number from 1 to 1000000000 \(got 0\)/
      ],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '5', '--per-day', '1000000001'),
        /--per-day must be a whole number from 1 to 1000000000/
      ],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '5', '--per-day', '50', '--per-month', '0'),
        /^animal-store: --per-month must be a whole number from 1 to 1000000000000 \(got 0\), or left out for none\n$/
      ],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '5', '--per-day', '50', '--per-month', '1000000000001'),
        /--per-month must be a whole number from 1 to 1000000000000 \(got 1000000000001\)/
      ],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '5', '--per-day', '50', '--per-month', '1.5'),
        /--per-month must be a whole number \(got "1.5"\)/
      ],
      [
        plans('create', 'x', '--name', 'X', '--per-minute', '5', '--per-day', '50', '--per-month', '"5"'),
        /--per-month must be a whole number \(got "\\"5\\""\)/
      ],
      [plans('create', 'x', '--name', 'X', '--per-month', '5'), /--per-minute N and --per-day N/],
      [plans('create', 'x', '--name', 'X', '--custom', '--per-month', '5'), /--custom takes no --per-month/],
      [plans('create', 'x', '--name', 'X', '--custom', '--per-minute', '5'), /--custom takes no --per-minute/],
      [plans('create', 'x', '--name', 'X', '--custom', '--no-monthly-quota'), /plans create does not take --no-monthly-quota/],
      [plans('create', '--name', 'X', '--custom'), /plans create takes exactly one plan id/],
      [plans('create', 'x', 'y', '--name', 'X', '--custom'), /plans create takes exactly one plan id/],
      [plans('create', 'x', '--name', 'X', '--custom', '--colour', 'red'), /--colour/],
      [plans('list', 'extra'), /plans list takes no positional arguments/],
      [plans('frobnicate'), /unknown plans command "frobnicate"/]
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(args, env)))
    results.forEach((result, i) => assertRefused(result, cases[i]![1], cases[i]![0].join(' ')))
    assert.deepEqual(withoutTimes(await list(env)), SEEDED)
    assert.deepEqual(await auditOfPlans(t, env), [])
  })

  test('update changes the name and limits; one limit keeps the others; a monthly quota is set, kept and removed', async (t) => {
    const env = await migrated(t, sqliteBackend)
    await ok(env, plans('create', 'team', '--name', 'Team', '--per-minute', '100', '--per-day', '5000'))

    const renamed = await json<Plan>(env, plans('update', 'team', '--name', 'Team (2024)', '--json'))
    assert.deepEqual([renamed.name, renamed.limits], ['Team (2024)', { perMinute: 100, perDay: 5000, perMonth: null }])
    const both = await json<Plan>(env, plans('update', 'team', '--per-minute', '200', '--per-day', '8000', '--json'))
    assert.deepEqual(both.limits, { perMinute: 200, perDay: 8000, perMonth: null })
    // The one not given keeps its value.
    const day = await json<Plan>(env, plans('update', 'team', '--per-day', '9000', '--no-monthly-quota', '--json'))
    assert.deepEqual(day.limits, { perMinute: 200, perDay: 9000, perMonth: null })
    const text = await ok(env, plans('update', 'team', '--per-minute', '250'))
    assert.equal(
      text,
      'Updated plan team (Team (2024); 250/min, 9000/day, no monthly quota); every instance applies it within 5 seconds.\n'
    )
    const month = await ok(env, plans('update', 'team', '--per-month', '1000000000000'))
    assert.equal(
      month,
      'Updated plan team (Team (2024); 250/min, 9000/day, 1000000000000/month); every instance applies it within 5 seconds.\n'
    )
    const kept = await json<Plan>(env, plans('update', 'team', '--per-minute', '260', '--per-day', '9100', '--json'))
    assert.deepEqual(kept.limits, { perMinute: 260, perDay: 9100, perMonth: 1_000_000_000_000 }, 'numbers alone keep the quota')
    assert.match(await ok(env, plans('list')), /\nteam\s+Team \(2024\)\s+260\s+9100\s+1000000000000\s+0\n/)
    const none = await json<Plan>(env, plans('update', 'team', '--no-monthly-quota', '--json'))
    assert.deepEqual(none.limits, { perMinute: 260, perDay: 9100, perMonth: null })
    await ok(env, plans('update', 'team', '--per-minute', '250', '--per-day', '9000', '--per-month', '50000'))

    // A custom plan has no numbers to keep: both are needed.
    const customEnterprise = await json<Plan>(env, plans('update', 'enterprise', '--per-minute', '1', '--per-day', '2', '--json'))
    assert.deepEqual(customEnterprise.limits, { perMinute: 1, perDay: 2, perMonth: null })
    const custom = await json<Plan>(env, plans('update', 'team', '--custom', '--json'))
    assert.equal(custom.limits, null, 'its monthly quota goes with its limits')
    const quota = await json<Plan>(env, plans('update', 'team', '--per-minute', '1', '--per-day', '2', '--per-month', '3', '--json'))
    assert.deepEqual(quota.limits, { perMinute: 1, perDay: 2, perMonth: 3 })
    await ok(env, plans('update', 'team', '--custom'))

    const before = await list(env)
    const cases: Array<[string[], RegExp]> = [
      [plans('update', 'team', '--per-minute', '5'), /plan "team" is custom .*--per-day/],
      [plans('update', 'team', '--per-month', '5'), /plan "team" is custom .*--per-minute and --per-day too/],
      [
        plans('update', 'free', '--per-month', '0'),
        /^animal-store: --per-month must be a whole number from 1 to 1000000000000 \(got 0\), or --no-monthly-quota for none\n$/
      ],
      [
        plans('update', 'free', '--per-minute', '5', '--per-day', '6', '--per-month', '1000000000001'),
        /--per-month must be a whole number from 1/
      ],
      [plans('update', 'free', '--per-month', '1.5'), /--per-month must be a whole number \(got "1.5"\)/],
      [plans('update', 'free', '--per-month', '-5'), /--per-month/],
      [plans('update', 'free', '--per-month', '5', '--no-monthly-quota'), /either --per-month or --no-monthly-quota/],
      [plans('update', 'free', '--custom', '--per-day', '5'), /--custom takes no --per-day/],
      [plans('update', 'free', '--per-minute', '0'), /--per-minute must be a whole number from 1/],
      [plans('update', 'free', '--per-day', 'lots'), /--per-day must be a whole number \(got "lots"\)/],
      [plans('update', 'free', '--name', ''), /--name must be 1 to 100 characters/],
      [plans('update', 'free'), /needs something to change/],
      [plans('update', 'free', '--json'), /needs something to change/],
      [plans('update', 'nope', '--name', 'X'), /no plan has id "nope"/],
      [plans('update', 'nope', '--per-minute', '5'), /no plan has id "nope"/],
      [plans('update', 'NOT A PLAN', '--name', 'X'), /no plan has id "NOT A PLAN"/]
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(args, env)))
    results.forEach((result, i) => assertRefused(result, cases[i]![1], cases[i]![0].join(' ')))
    assert.deepEqual(await list(env), before)
  })

  test('update --custom is refused while keys on the plan carry no numbers of their own', async (t) => {
    const env = await migrated(t, sqliteBackend)
    await ok(env, plans('create', 'team', '--name', 'Team', '--per-minute', '100', '--per-day', '5000'))
    await json(env, ['keys', 'create', '--plan', 'team', '--json'])
    const before = await list(env)
    assert.equal(before.find((p) => p.id === 'team')!.customers, 1)
    assertRefused(await runCli(plans('update', 'team', '--custom'), env), /cannot become custom/, 'update --custom')
    assert.deepEqual(await list(env), before)
    // A key with numbers of its own does not stand in the way.
    await json(env, ['keys', 'create', '--plan', 'pro', '--per-minute', '7', '--per-day', '70', '--json'])
    assert.equal((await json<Plan>(env, plans('update', 'pro', '--custom', '--json'))).limits, null)
  })

  test('delete: an unused plan is gone; one a key is on, or an unknown id, is refused', async (t) => {
    const env = await migrated(t, sqliteBackend)
    await ok(env, plans('create', 'team', '--name', 'Team', '--per-minute', '100', '--per-day', '5000'))
    await ok(env, plans('create', 'spare', '--name', 'Spare', '--custom'))
    assert.equal(await ok(env, plans('delete', 'spare')), 'Deleted plan spare.\n')
    assert.ok(!(await list(env)).some((p) => p.id === 'spare'))

    await json(env, ['keys', 'create', '--plan', 'team', '--json'])
    const before = await list(env)
    assertRefused(await runCli(plans('delete', 'team'), env), /plan "team" has 1 customer on it; move them/, 'delete in use')
    assertRefused(await runCli(plans('delete', 'spare'), env), /no plan has id "spare"/, 'delete again')
    assertRefused(await runCli(plans('delete', 'nope'), env), /no plan has id "nope"/, 'delete unknown')
    assertRefused(await runCli(plans('delete'), env), /plans delete takes exactly one plan id/, 'delete without id')
    assertRefused(await runCli(plans('delete', 'team', '--json'), env), /plans delete does not take --json/, 'delete --json')
    assert.deepEqual(await list(env), before)
  })

  test('the audit log has plan.create, plan.update and plan.delete by the OS user at the CLI', async (t) => {
    const env = await migrated(t, sqliteBackend)
    await ok(env, plans('create', 'team', '--name', 'Team', '--per-minute', '100', '--per-day', '5000'))
    await ok(env, plans('update', 'team', '--name', 'Team 2', '--per-day', '6000'))
    await ok(env, plans('update', 'team', '--per-month', '70000'))
    await ok(env, plans('update', 'team', '--no-monthly-quota'))
    await ok(env, plans('delete', 'team'))
    // Refusals write nothing.
    assertRefused(await runCli(plans('update', 'free', '--per-month', '0'), env), /--per-month/, 'per-month')
    assertRefused(await runCli(plans('delete', 'team'), env), /no plan has id/, 'delete again')
    const entries = await auditOfPlans(t, env)
    const actor = osUser()
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor, e.target]),
      [
        ['plan.create', actor, { type: 'plan', id: 'team', name: 'Team' }],
        ['plan.update', actor, { type: 'plan', id: 'team', name: 'Team 2' }],
        ['plan.update', actor, { type: 'plan', id: 'team', name: 'Team 2' }],
        ['plan.update', actor, { type: 'plan', id: 'team', name: 'Team 2' }],
        ['plan.delete', actor, { type: 'plan', id: 'team', name: 'Team 2' }]
      ]
    )
    assert.equal(actor.type, 'cli')
    assert.deepEqual(entries[1]!.changes, { name: { from: 'Team', to: 'Team 2' }, perDay: { from: 5000, to: 6000 } })
    assert.deepEqual(
      entries.slice(2, 4).map((entry) => entry.changes),
      [{ perMonth: { from: null, to: 70000 } }, { perMonth: { from: 70000, to: null } }]
    )
    for (const entry of entries) assert.deepEqual([entry.requestId, entry.remoteAddress, entry.userAgent], [null, null, null])
  })

  test('help: plans --help and help plans print the usage; no command is exit 2', async (t) => {
    const env = await migrated(t, sqliteBackend)
    for (const args of [plans('--help'), ['help', 'plans'], plans('create', '--help')]) {
      const result = await runCli(args, env)
      assert.equal(result.code, 0, args.join(' '))
      assert.match(result.stdout, /^Usage: animal-store plans <command>/)
      assert.match(result.stdout, /--no-monthly-quota/)
      assert.doesNotMatch(result.stdout, /not available/)
    }
    const none = await runCli(plans(), env)
    assert.equal(none.code, 2)
    assert.match(none.stderr, /^animal-store: plans needs a command: list, create, update or delete\n$/)
    assert.match((await runCli(['help'], env)).stdout, /\n {2}plans \.\.\. /)
  })
})

const postgresSkip = await backendSkip(postgresBackend)

describe('animal-store plans on postgres', { skip: postgresSkip }, () => {
  test('list, create, update, delete and their refusals work as on SQLite, audited', async (t) => {
    const env = await migrated(t, postgresBackend)
    assert.deepEqual(withoutTimes(await list(env)), SEEDED)
    const team = await json<Plan>(env, plans('create', 'team', '--name', 'Team', '--per-minute', '100', '--per-day', '5000', '--json'))
    assert.deepEqual(team.limits, { perMinute: 100, perDay: 5000, perMonth: null })
    assertRefused(await runCli(plans('create', 'team', '--name', 'Again', '--custom'), env), /exists already/, 'duplicate')
    assert.deepEqual(
      (await json<Plan>(env, plans('update', 'team', '--per-minute', '150', '--per-month', '1000000000000', '--json'))).limits,
      {
        perMinute: 150,
        perDay: 5000,
        perMonth: 1_000_000_000_000
      }
    )
    assert.equal((await json<Plan>(env, plans('update', 'team', '--no-monthly-quota', '--json'))).limits?.perMonth, null)
    await json(env, ['keys', 'create', '--plan', 'team', '--json'])
    assertRefused(await runCli(plans('update', 'team', '--custom'), env), /cannot become custom/, 'custom while in use')
    assertRefused(await runCli(plans('delete', 'team'), env), /move them/, 'delete in use')
    await ok(env, plans('create', 'spare', '--name', 'Spare', '--custom'))
    await ok(env, plans('delete', 'spare'))
    assert.deepEqual(
      (await list(env)).map((p) => [p.id, p.customers]),
      [
        ['business', 0],
        ['enterprise', 0],
        ['free', 0],
        ['pro', 0],
        ['team', 1]
      ]
    )
    assert.deepEqual(
      (await auditOfPlans(t, env)).map((e) => [e.action, e.actor.type, e.target.id]),
      [
        ['plan.create', 'cli', 'team'],
        ['plan.update', 'cli', 'team'],
        ['plan.update', 'cli', 'team'],
        ['plan.create', 'cli', 'spare'],
        ['plan.delete', 'cli', 'spare']
      ]
    )
  })
})
