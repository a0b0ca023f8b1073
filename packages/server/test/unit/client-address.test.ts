import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { ClientAddresses } from '../../src/http/hooks/requests/client-address.ts'
import { runCli } from '../helpers/cli.ts'

const addresses = (trustProxy: string | undefined, prefix = '64') => {
  const config = loadConfig({ TRUST_PROXY: trustProxy, RATE_LIMIT_IPV6_PREFIX: prefix })
  return new ClientAddresses(config.trustProxy, config.ipv6Prefix)
}

describe('client address', () => {
  test('without TRUST_PROXY: the socket peer, X-Forwarded-For ignored', () => {
    const direct = addresses(undefined)
    assert.equal(direct.of('198.51.100.7', '203.0.113.1'), '198.51.100.7')
    assert.equal(direct.of('::ffff:198.51.100.7', undefined), '198.51.100.7', 'IPv4-mapped counts as IPv4')
    assert.equal(direct.of(undefined, undefined), 'unknown')
    assert.equal(addresses('0').of('10.0.0.1', '203.0.113.1'), '10.0.0.1', '0 hops: no proxy')
  })

  test('TRUST_PROXY=N: the right-most entry not added by the N trusted hops', () => {
    const one = addresses('1')
    assert.equal(one.of('10.0.0.1', undefined), '10.0.0.1', 'no header: the peer')
    assert.equal(one.of('10.0.0.1', '203.0.113.9'), '203.0.113.9')
    assert.equal(one.of('10.0.0.1', '1.2.3.4, 203.0.113.9'), '203.0.113.9', 'the client-written left entry is not believed')
    assert.equal(one.of('10.0.0.1', ['1.2.3.4', '203.0.113.9']), '203.0.113.9', 'several header lines are one list')
    const two = addresses('2')
    assert.equal(two.of('10.0.0.1', '6.6.6.6, 203.0.113.9, 10.0.0.2'), '203.0.113.9')
    assert.equal(two.of('10.0.0.1', '10.0.0.2'), '10.0.0.2', 'fewer entries than hops: the left-most')
  })

  test('TRUST_PROXY=list: walk past trusted addresses and CIDRs, IPv4 and IPv6', () => {
    const list = addresses('10.0.0.0/8, 192.0.2.1, 2001:db8::/32')
    assert.equal(list.of('10.1.2.3', '6.6.6.6, 203.0.113.9, 192.0.2.1'), '203.0.113.9')
    assert.equal(list.of('::ffff:10.1.2.3', '203.0.113.9'), '203.0.113.9', 'a mapped peer matches its IPv4 block')
    assert.equal(list.of('2001:db8::5', '203.0.113.9, 2001:db8::6'), '203.0.113.9')
    assert.equal(list.of('198.51.100.1', '203.0.113.9'), '198.51.100.1', 'an untrusted peer is the client')
    assert.equal(list.of('10.1.2.3', '10.9.9.9, 10.8.8.8'), '10.9.9.9', 'all trusted: the left-most')
  })

  test('malformed entries fall back to the nearest trusted hop, never crash', () => {
    const two = addresses('2')
    assert.equal(two.of('10.0.0.1', 'junk, 10.0.0.2'), '10.0.0.2')
    assert.equal(two.of('10.0.0.1', '203.0.113.9, junk'), '10.0.0.1')
    for (const junk of ['', ',', ' , ', 'unknown', '1.2.3.4:80', '[::1]', '999.1.1.1', 'a'.repeat(10_000), '::ffff:1.2.3', '1.2.3.4/8'])
      assert.equal(addresses('1').of('10.0.0.1', junk), '10.0.0.1', JSON.stringify(junk.slice(0, 20)))
  })

  test('IPv6 counts by its RATE_LIMIT_IPV6_PREFIX; IPv4-mapped counts as IPv4', () => {
    const one = addresses('1')
    assert.equal(one.of('10.0.0.1', '2001:db8:1:2:3:4:5:6'), '2001:db8:1:2:0:0:0:0/64')
    assert.equal(one.of('10.0.0.1', '2001:db8:1:2::ffff'), '2001:db8:1:2:0:0:0:0/64', 'one /64 is one client')
    assert.notEqual(one.of('10.0.0.1', '2001:db8:1:3::1'), one.of('10.0.0.1', '2001:db8:1:2::1'))
    assert.equal(one.of('10.0.0.1', '::ffff:192.0.2.99'), '192.0.2.99')
    assert.equal(one.of('10.0.0.1', '::ffff:c000:263'), '192.0.2.99')
    assert.equal(one.of('10.0.0.1', 'fe80::1%eth0'), 'fe80:0:0:0:0:0:0:0/64')
    assert.equal(addresses('1', '56').of('10.0.0.1', '2001:db8:1:2ff::1'), '2001:db8:1:200:0:0:0:0/56')
    assert.equal(addresses('1', '128').of('10.0.0.1', '2001:db8::1'), '2001:db8:0:0:0:0:0:1/128')
    assert.equal(addresses('1', '16').of('10.0.0.1', '2001:db8::1'), '2001:0:0:0:0:0:0:0/16')
  })

  test('a bad TRUST_PROXY or RATE_LIMIT_IPV6_PREFIX is refused with one clear line', async () => {
    for (const value of ['bogus', 'true', 'false', '-1', '1.5', '10.0.0.0/33', '10.0.0.1,', '::1/129', '10.0.0.0/8/1', '101'])
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (error: Error) => {
          assert.ok(error instanceof ConfigError)
          assert.match(error.message, /^TRUST_PROXY=.* is invalid .*expected a hop count/)
          return true
        }
      )
    for (const value of ['15', '129', 'x']) assert.throws(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX: value }), /RATE_LIMIT_IPV6_PREFIX/)
    assert.throws(() => loadConfig({ RATE_LIMIT_MAX_ADDRESSES: '0' }), /RATE_LIMIT_MAX_ADDRESSES/)
    const serve = await runCli(['serve'], { TRUST_PROXY: 'bogus', PORT: '0' })
    assert.equal(serve.code, 1)
    assert.equal(serve.stderr.trim().split('\n').length, 1, serve.stderr)
    assert.match(serve.stderr, /TRUST_PROXY="bogus" is invalid/)
  })
})
