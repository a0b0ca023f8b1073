import { BlockList, isIPv4, isIPv6 } from 'node:net'

/** An IP address in canonical form: IPv4 as dotted decimal (IPv4-mapped IPv6 included), IPv6 as eight 16-bit groups. */
export type IpAddress = { family: 4; text: string } | { family: 6; groups: number[] }

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0xffff]

/** The eight groups of a valid IPv6 text (zone dropped, an embedded dotted IPv4 tail folded in). */
function ipv6Groups(text: string): number[] {
  let s = text.includes('%') ? text.slice(0, text.indexOf('%')) : text
  const lastColon = s.lastIndexOf(':')
  if (s.includes('.', lastColon)) {
    const [a, b, c, d] = s
      .slice(lastColon + 1)
      .split('.')
      .map(Number) as [number, number, number, number]
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = s.split('::') as [string, string | undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = new Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16))
}

/** Parses an address as it appears on a socket or in `X-Forwarded-For`; undefined when it is not one. */
export function parseIpAddress(raw: string): IpAddress | undefined {
  if (isIPv4(raw)) return { family: 4, text: raw }
  if (!isIPv6(raw)) return undefined
  const groups = ipv6Groups(raw)
  if (MAPPED_PREFIX.every((value, i) => groups[i] === value)) {
    const [high, low] = [groups[6]!, groups[7]!]
    return { family: 4, text: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}` }
  }
  return { family: 6, groups }
}

/**
 * Who a client counts as for per-address limits: an IPv4 address itself; an IPv6 address by
 * its first `ipv6Prefix` bits (one customer's line holds a whole /64), e.g. `2001:db8:0:1:0:0:0:0/64`.
 */
export function addressKey(address: IpAddress, ipv6Prefix: number): string {
  if (address.family === 4) return address.text
  const masked = address.groups.map((group, i) => {
    const keep = Math.max(0, Math.min(16, ipv6Prefix - i * 16))
    return keep === 16 ? group : keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff)
  })
  return `${masked.map((group) => group.toString(16)).join(':')}/${ipv6Prefix}`
}

/** The proxies whose `X-Forwarded-For` entries are believed: a number of hops, or a set of addresses. */
export type TrustedProxies = { hops: number } | { list: BlockList }

const addressFamily = (address: IpAddress) => (address.family === 4 ? 'ipv4' : 'ipv6')
const ipv6Text = (groups: number[]) => groups.map((group) => group.toString(16)).join(':')

/** Parses a comma-separated list of addresses and CIDRs; the first entry that is neither is thrown as its text. */
export function parseProxyList(text: string): BlockList {
  const list = new BlockList()
  for (const entry of text.split(',').map((part) => part.trim())) {
    const [host = '', bits, extra] = entry.split('/')
    const address = parseIpAddress(host)
    const max = address?.family === 4 && !host.includes(':') ? 32 : 128
    if (address === undefined || extra !== undefined || (bits !== undefined && !/^[0-9]{1,3}$/.test(bits)) || Number(bits ?? 0) > max)
      throw new Error(entry)
    const where = address.family === 4 ? address.text : ipv6Text(address.groups)
    // A mapped IPv4 CIDR (::ffff:10.0.0.0/104) covers the IPv4 block it names.
    const length = bits === undefined ? undefined : max === 128 && address.family === 4 ? Math.max(0, Number(bits) - 96) : Number(bits)
    if (length === undefined) list.addAddress(where, addressFamily(address))
    else list.addSubnet(where, length, addressFamily(address))
  }
  return list
}

/** Whether `address`, which arrived `hop` steps from this process (0: the socket's peer), is a trusted proxy. */
export function isTrustedProxy(proxies: TrustedProxies, address: IpAddress, hop: number): boolean {
  if ('hops' in proxies) return hop < proxies.hops
  return proxies.list.check(address.family === 4 ? address.text : ipv6Text(address.groups), addressFamily(address))
}
