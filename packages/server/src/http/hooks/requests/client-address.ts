import { addressKey, isTrustedProxy, parseIpAddress, type TrustedProxies } from '../../../base/ip-address.ts'

/**
 * Who a request counts as for per-address limits. Without trusted proxies: the socket's peer.
 * With them: walking `X-Forwarded-For` from the right (the entry the nearest proxy appended)
 * past every trusted proxy, the first address that is not one. Entries left of it were written
 * by the client and are never believed. A malformed entry stops the walk at the nearest trusted
 * hop, so junk can neither crash it nor mint fresh identities. IPv6 counts by prefix.
 */
export class ClientAddresses {
  readonly #proxies: TrustedProxies | undefined
  readonly #ipv6Prefix: number

  constructor(proxies: TrustedProxies | undefined, ipv6Prefix: number) {
    this.#proxies = proxies
    this.#ipv6Prefix = ipv6Prefix
  }

  /** The client's address key, from the socket's peer and the request's `X-Forwarded-For` header(s). */
  of(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
    let current = parseIpAddress(peer ?? '')
    // A socket already gone has no peer: such requests share one bucket.
    if (current === undefined) return 'unknown'
    const proxies = this.#proxies
    if (proxies !== undefined && forwardedFor !== undefined) {
      const entries = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',')
      for (let i = entries.length - 1, hop = 0; i >= 0 && isTrustedProxy(proxies, current, hop); i--, hop++) {
        const next = parseIpAddress(entries[i]!.trim())
        if (next === undefined) break
        current = next
      }
    }
    return addressKey(current, this.#ipv6Prefix)
  }
}
