import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { startApp, type TestApp } from '../helpers/app.ts'
import { suiteBackends } from '../helpers/backends.ts'

/** Keyless requests, each through "the proxy" with this X-Forwarded-For; how many were 429. */
async function limitedCount(app: TestApp, forwardedFor: (i: number) => string, count = 80): Promise<number> {
  let limited = 0
  for (let i = 0; i < count; i++) {
    const response = await app.fetch('/v1/pets', { key: null, headers: { 'x-forwarded-for': forwardedFor(i) } })
    await response.arrayBuffer()
    assert.ok(response.status === 401 || response.status === 429, `status ${response.status}`)
    if (response.status === 429) limited++
  }
  return limited
}

// The test is the one proxy in front of the service (TRUST_PROXY=1): it appends the address it
// saw on the right of whatever the client wrote.
for (const { backend, skip } of await suiteBackends()) {
  describe(`per-address limits behind a proxy [${backend.name}]`, { skip }, () => {
    const start = (t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) =>
      startApp(t, { backend, env: { TRUST_PROXY: '1', ...env } })

    test('one client rotating its own X-Forwarded-For entry is limited; 80 distinct proxied clients are not', async (t) => {
      const app = await start(t)
      const rotating = await limitedCount(app, (i) => `198.18.${i >> 8}.${i & 255}, 203.0.113.7`)
      assert.equal(rotating, 20, 'all 80 count as 203.0.113.7: the 61st to 80th are refused')
      assert.equal(await limitedCount(app, (i) => `203.0.113.7, 198.51.100.${i}`), 0)
    })

    test('one IPv6 /64 is one client; 80 distinct /64s are 80', async (t) => {
      const app = await start(t)
      const oneLine = await limitedCount(app, (i) => `2001:db8:aa:1:${i.toString(16)}::${((i * 7919) & 0xffff).toString(16)}`)
      assert.equal(oneLine, 20, 'all 80 count as 2001:db8:aa:1::/64')
      assert.equal(await limitedCount(app, (i) => `2001:db8:bb:${i.toString(16)}::1`), 0)
    })

    test('RATE_LIMIT_IPV6_PREFIX=128 counts each IPv6 address', async (t) => {
      const app = await start(t, { RATE_LIMIT_IPV6_PREFIX: '128' })
      assert.equal(await limitedCount(app, (i) => `2001:db8:aa:1::${i.toString(16)}`), 0)
    })

    test('an IPv4-mapped IPv6 address and its IPv4 address are one client', async (t) => {
      const app = await start(t)
      const limited = await limitedCount(app, (i) => (i % 2 === 0 ? '::ffff:192.0.2.99' : '192.0.2.99'))
      assert.equal(limited, 20)
    })

    test('malformed entries count as the proxy that relayed them, never as fresh clients', async (t) => {
      const app = await start(t, { TRUST_PROXY: '2' })
      // Behind two proxies the nearest (the test) appends the first proxy's address, 10.0.0.2.
      const limited = await limitedCount(app, (i) => `junk-${i}, 10.0.0.2`)
      assert.ok(limited >= 20, `${limited} of 80 limited`)
    })

    test('keyed requests are untouched by the address limits', async (t) => {
      const app = await start(t)
      await limitedCount(app, () => '203.0.113.50')
      const keyed = await app.fetch('/v1/pets', { headers: { 'x-forwarded-for': '203.0.113.50' } })
      assert.equal(keyed.status, 200)
    })
  })
}
