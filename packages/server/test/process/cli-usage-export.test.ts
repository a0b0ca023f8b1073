import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { openStorage } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { tempDir } from '../helpers/temp.ts'

// `animal-store usage export` as an operator runs it against a SQLite file: the lines of the
// operator API's export, and bad input as one line and exit 2.

test('usage export prints the closed periods in both formats; bad input is one line, exit 2', async (t) => {
  const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'export.db')}`, PUBLIC_BASE_URL: 'https://api.example.com/v1' }
  const made = await runCli(['customers', 'create', '--name', 'Acme', '--plan', 'pro', '--external-id', 'cus_Acme', '--json'], env)
  assert.equal(made.code, 0, made.stderr)
  const customerId = (JSON.parse(made.stdout) as { id: string }).id
  const key = await runCli(['keys', 'create', '--customer', customerId, '--json'], env)
  const keyId = (JSON.parse(key.stdout) as { id: string }).id
  const storage = await openStorage(t, env)
  await storage.usage.add([
    { keyId, minuteStart: Date.parse('2026-01-05T10:07:00Z'), allowed: 9, rateLimited: 1, banned: 0, quotaExceeded: 2 }
  ])

  const range = ['--from', '2026-01-05T00:00:00Z', '--to', '2026-01-06T00:00:00Z']
  const cloud = await runCli(['usage', 'export', ...range], env)
  assert.equal(cloud.code, 0, cloud.stderr)
  const [event, ...rest] = cloud.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  assert.deepEqual(rest, [])
  assert.equal(event!.id, `${customerId}/hour/2026-01-05T10:00:00.000Z`)
  assert.equal(event!.source, 'https://api.example.com/v1')
  assert.deepEqual(event!.data, {
    customerId,
    externalId: 'cus_Acme',
    plan: 'pro',
    from: '2026-01-05T10:00:00.000Z',
    to: '2026-01-05T11:00:00.000Z',
    allowed: 9,
    rateLimited: 1,
    banned: 0,
    quotaExceeded: 2
  })
  const stripe = await runCli(['usage', 'export', ...range, '--granularity', 'day', '--format', 'stripe'], env)
  assert.equal(
    stripe.stdout,
    `${JSON.stringify({
      event_name: 'animal_store_requests',
      timestamp: Date.parse('2026-01-06T00:00:00Z') / 1000,
      identifier: `${customerId}/day/2026-01-05T00:00:00.000Z`,
      payload: { stripe_customer_id: 'cus_Acme', value: '9' }
    })}\n`
  )

  for (const [args, words] of [
    [['--to', '2026-01-06T00:00:00Z'], '--from is required'],
    [['--from', '2026-01-05T00:30:00Z', '--to', '2026-01-06T00:00:00Z'], '--from must be on a boundary'],
    [[...range, '--format', 'csv'], '--format must be one of cloudevents, stripe'],
    [['--from', 'monday', '--to', '2026-01-06T00:00:00Z'], '--from names no real date']
  ] as const) {
    const refused = await runCli(['usage', 'export', ...args], env)
    assert.equal(refused.code, 2, refused.stderr)
    assert.equal(refused.stdout, '')
    assert.match(refused.stderr, new RegExp(`^animal-store: ${words}[^\\n]*\\n$`))
  }
})
