import { describe, test } from 'node:test'
import { behindProxy } from '../helpers/behind-proxy.ts'
import { findBinary, proxySkip, startCaddy } from '../helpers/proxies.ts'

const caddy = findBinary(['/usr/bin/caddy', '/usr/local/bin/caddy'])

describe('behind Caddy configured from deploy/Caddyfile (TLS left out)', () => {
  const skip = proxySkip('Caddy', caddy, 'caddy')
  test('limits per client address, 413, links, request ids, the service down', { skip }, (t) =>
    behindProxy(t, (upstream) => startCaddy(t, caddy!, upstream))
  )
})
