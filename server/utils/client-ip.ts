/**
 * The end user's address as the gateway forwards it to the IAM (X-Forwarded-For), resolved with the
 * IAM's own rule (shared/ip.ts): the socket address, unless `proxy.trust` is on
 * and the socket address is `proxy.ipToTrust` (a load balancer in front of the gateway); then the
 * right-most X-Forwarded-For address that is not that proxy. Entries further left are whatever the
 * browser sent and are never believed.
 */
import type { H3Event } from 'h3'
import { isProxyWithoutClient, resolveClientIp, type ClientIpInput } from '../../shared/ip'
import { useGatewayConfig } from './gateway-config'

/** Normalised (IPv4-mapped IPv6 as IPv4); undefined when unresolvable (the caller refuses). */
export function clientIpOf(event: H3Event): string | undefined {
  return resolveClientIp(clientIpInput(event)) ?? undefined
}

/** The request came from the trusted proxy, which named no client: clientIpOf is then the proxy's own address. */
export function isFromProxyWithoutClient(event: H3Event): boolean {
  return isProxyWithoutClient(clientIpInput(event))
}

function clientIpInput(event: H3Event): ClientIpInput {
  const { proxy } = useGatewayConfig()
  const { req } = event.node
  return { socketIp: req.socket?.remoteAddress, forwardedFor: req.headers['x-forwarded-for'], trustProxy: proxy.trust, proxyIp: proxy.ipToTrust }
}
