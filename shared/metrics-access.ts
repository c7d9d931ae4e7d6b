/**
 * Who may read /metrics, for the IAM and the gateway alike: a caller whose resolved client IP is
 * in the allow-list (IPs or CIDRs, default loopback), or one presenting `Authorization: Bearer
 * <metrics token>`. A Bearer that is presented must be right, from anywhere: a wrong one is
 * refused even from an allowed address, so a misconfigured scraper shows up instead of passing by
 * luck. A request that came through the trusted proxy without naming its client (no
 * X-Forwarded-For) resolves to the proxy's own address: the allow-list never admits it, else a
 * loopback proxy would open the metrics to anyone who reaches it. Node built-ins only (the
 * gateway imports this file).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { BlockList } from 'node:net'
import { isIPv4, isIPv6, normalizeIp } from './ip'

export const DEFAULT_METRICS_ALLOW = ['127.0.0.1', '::1'] as const

/** Parses one allow-list entry (`ip` or `ip/prefix`); null when it is neither. */
function parseEntry(entry: string): { address: string; family: 'ipv4' | 'ipv6'; prefix: number } | null {
  const [rawAddress = '', rawPrefix, ...rest] = entry.trim().split('/')
  if (rest.length) return null
  const address = normalizeIp(rawAddress)
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null
  if (!family) return null
  const max = family === 'ipv4' ? 32 : 128
  if (rawPrefix === undefined) return { address, family, prefix: max }
  if (!/^\d{1,3}$/.test(rawPrefix) || Number(rawPrefix) > max) return null
  return { address, family, prefix: Number(rawPrefix) }
}

/** For the config schemas: is this a valid allow-list entry? */
export const isAllowEntry = (entry: string): boolean => parseEntry(entry) !== null

/** The allow-list as a matcher of normalised client IPs. Throws on an invalid entry. */
export function createIpAllowList(entries: readonly string[]): (ip: string) => boolean {
  const list = new BlockList()
  for (const entry of entries) {
    const parsed = parseEntry(entry)
    if (!parsed) throw new Error(`not an IP address or CIDR: ${entry}`)
    list.addSubnet(parsed.address, parsed.prefix, parsed.family)
  }
  return (ip) => {
    const address = normalizeIp(ip)
    if (isIPv4(address)) return list.check(address, 'ipv4')
    return isIPv6(address) && list.check(address, 'ipv6')
  }
}

// Digests have one length, so timingSafeEqual compares without revealing the token's length.
const digest = (value: string) => createHash('sha256').update(value).digest()

export interface MetricsAccessInput {
  clientIp: string
  /** the request came from the trusted proxy, which named no client (ip.ts isProxyWithoutClient) */
  proxyWithoutClient: boolean
  authorization: string | undefined
  isAllowedIp: (ip: string) => boolean
  /** the configured bearer secret; absent = only the allow-list admits */
  token: string | undefined
}

export function mayReadMetrics(input: MetricsAccessInput): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(input.authorization ?? '')
  if (input.authorization !== undefined && input.authorization !== '') {
    if (!match?.[1] || !input.token) return false
    return timingSafeEqual(digest(match[1]), digest(input.token))
  }
  return !input.proxyWithoutClient && input.isAllowedIp(input.clientIp)
}
