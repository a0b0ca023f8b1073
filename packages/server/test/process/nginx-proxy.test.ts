import { describe, test } from 'node:test'
import { behindProxy } from '../helpers/behind-proxy.ts'
import { findBinary, proxySkip, startNginx } from '../helpers/proxies.ts'

const nginx = findBinary(['/usr/sbin/nginx', '/usr/bin/nginx'])

describe('behind nginx configured from deploy/nginx (TLS left out)', () => {
  const skip = proxySkip('nginx', nginx, 'nginx-light')
  test('limits per client address, 413, links, request ids, the redirect, the service down', { skip }, (t) =>
    behindProxy(t, (upstream) => startNginx(t, nginx!, upstream))
  )
})
