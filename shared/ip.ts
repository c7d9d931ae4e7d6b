/**
 * IP address helpers: validation, one canonical spelling per address, network comparison and the
 * client IP behind a trusted proxy.
 *
 * Canonical spelling matters because addresses are compared as strings everywhere (allow-lists,
 * the HMAC /health exemption, session IP drift): an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
 * what a dual-stack socket reports for an IPv4 peer) becomes `1.2.3.4`, and IPv6 takes its
 * RFC 5952 form (lowercase, no leading zeros, longest zero run as `::`).
 */
import { isIPv4 as netIsIPv4, isIPv6 as netIsIPv6 } from 'node:net'

/** Dotted-quad IPv4 (no leading zeros, as node:net checks it). */
export function isIPv4(ip: string): boolean {
  return netIsIPv4(ip)
}

export function isIPv6(ip: string): boolean {
  return netIsIPv6(ip)
}

/** IPv4 or IPv6. */
export function isIP(ip: string): boolean {
  return netIsIPv4(ip) || netIsIPv6(ip)
}

/** The eight 16-bit groups of a valid IPv6 address (without zone), or null. */
function ipv6Groups(ip: string): number[] | null {
  if (!netIsIPv6(ip)) return null
  let text = (ip.split('%')[0] ?? '').toLowerCase()
  const lastColon = text.lastIndexOf(':')
  const last = text.slice(lastColon + 1)
  if (last.includes('.')) {
    // embedded IPv4 (`::ffff:1.2.3.4`): the same 32 bits as two hex groups
    const [a = 0, b = 0, c = 0, d = 0] = last.split('.').map(Number)
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)))
  let groups: number[]
  if (text.includes('::')) {
    const [head = '', rest = ''] = text.split('::')
    const left = parse(head)
    const right = parse(rest)
    groups = [...left, ...new Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right]
  } else {
    groups = parse(text)
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

function compressIpv6(groups: number[]): string {
  // RFC 5952 section 4.2: the longest run of two or more zero groups, the first one on a tie.
  let bestStart = -1
  let bestLength = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) {
      bestStart = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart === -1) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`
}

/**
 * One spelling per address: IPv4-mapped IPv6 => IPv4, IPv6 => RFC 5952 (a zone id is kept).
 * Anything that is not an IP address comes back trimmed and otherwise unchanged.
 */
export function normalizeIp(ip: string): string {
  const text = ip.trim()
  if (netIsIPv4(text)) return text
  const groups = ipv6Groups(text)
  if (!groups) return text
  // ::ffff:0:0/96 (RFC 4291 section 2.5.5.2)
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6)
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
  }
  const zone = text.includes('%') ? text.slice(text.indexOf('%')) : ''
  return compressIpv6(groups) + zone
}

/** Same /24 (IPv4) or /48 (IPv6); false for mixed families or invalid input. */
export function sameNetwork(a: string, b: string): boolean {
  const x = normalizeIp(a)
  const y = normalizeIp(b)
  if (netIsIPv4(x) && netIsIPv4(y)) return x.split('.').slice(0, 3).join('.') === y.split('.').slice(0, 3).join('.')
  const gx = ipv6Groups(x)
  const gy = ipv6Groups(y)
  if (!gx || !gy || netIsIPv4(x) || netIsIPv4(y)) return false
  return gx[0] === gy[0] && gx[1] === gy[1] && gx[2] === gy[2]
}

/**
 * The address a rate limiter or ban counts against: IPv4 as is, IPv6 as its /64 in canonical
 * form (`2001:db8:1:2::/64`). One IPv6 subscriber (a home, a VPS) is routed a /64 or more and can
 * pick any of its 2^64 addresses per request, so keying on the full address would give every
 * request a fresh budget (RFC 7421: /64 is the smallest prefix a LAN uses). Only limiter and ban
 * keys use this; sessions, visitors and allow-lists keep the full address. Anything that is not
 * an IP address comes back normalised as normalizeIp leaves it (the caller has validated it).
 */
export function limiterIpKey(ip: string): string {
  const text = normalizeIp(ip)
  if (netIsIPv4(text)) return text
  const groups = ipv6Groups(text)
  if (!groups) return text
  // the zone id is dropped: a zone is local to the host, not part of the network
  return `${compressIpv6([...groups.slice(0, 4), 0, 0, 0, 0])}/64`
}

/** One X-Forwarded-For entry without quotes, brackets or port (`[v6]:port`, `v4:port`). */
function stripPort(entry: string): string {
  const text = entry.trim().replace(/^"(.*)"$/, '$1')
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed?.[1]) return bracketed[1]
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  return v4WithPort?.[1] ?? text
}

/** The X-Forwarded-For chain, left (original client) to right (nearest proxy), normalised. */
export function parseForwardedFor(header: string | string[] | undefined): string[] {
  if (header === undefined) return []
  const joined = Array.isArray(header) ? header.join(',') : header
  if (joined.trim() === '') return []
  return joined.split(',').map((entry) => normalizeIp(stripPort(entry)))
}

export interface ClientIpInput {
  socketIp: string | undefined
  forwardedFor: string | string[] | undefined
  trustProxy: boolean
  proxyIp: string | undefined
}

/**
 * The client IP: the socket address, unless the proxy is trusted and the
 * socket address is that proxy; then the right-most X-Forwarded-For address that is not the proxy
 * (entries left of it are client-supplied and can be forged). A request from the proxy without
 * any other address is the proxy's own. null = unresolvable or invalid (the caller answers 403).
 */
export function resolveClientIp(input: ClientIpInput): string | null {
  const socket = normalizeIp(input.socketIp ?? '')
  if (!isIP(socket)) return null
  if (!input.trustProxy || !input.proxyIp || socket !== normalizeIp(input.proxyIp)) return socket
  const chain = parseForwardedFor(input.forwardedFor)
  for (let i = chain.length - 1; i >= 0; i--) {
    const ip = chain[i] ?? ''
    if (ip === socket) continue
    return isIP(ip) ? ip : null
  }
  return socket
}

/**
 * True when the request came from the trusted proxy and X-Forwarded-For names no address but the
 * proxy's: resolveClientIp then answers the proxy's own address, which says where the request
 * entered, not who sent it (a loopback proxy makes every such request "loopback"). An allow-list
 * that grants something by address must not grant it to this.
 */
export function isProxyWithoutClient(input: ClientIpInput): boolean {
  const socket = normalizeIp(input.socketIp ?? '')
  if (!input.trustProxy || !input.proxyIp || !isIP(socket) || socket !== normalizeIp(input.proxyIp)) return false
  return parseForwardedFor(input.forwardedFor).every((ip) => ip === socket)
}
