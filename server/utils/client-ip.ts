/**
 * The end user's address as the gateway forwards it to the IAM (X-Forwarded-For), resolved with the
 * IAM's own rule (iam/lib/ip.ts, DESIGN section 3): the socket address, unless `proxy.trust` is on
 * and the socket address is `proxy.ipToTrust` (a load balancer in front of the gateway); then the
 * right-most X-Forwarded-For address that is not that proxy. Entries further left are whatever the
 * browser sent and are never believed.
 */
import type { H3Event } from 'h3'
import { resolveClientIp } from '../../iam/lib/ip'
import { useGatewayConfig } from './gateway-config'

/** Normalised (IPv4-mapped IPv6 as IPv4); undefined when unresolvable (the caller refuses). */
export function clientIpOf(event: H3Event): string | undefined {
  const { proxy } = useGatewayConfig()
  const { req } = event.node
  const ip = resolveClientIp({
    socketIp: req.socket?.remoteAddress,
    forwardedFor: req.headers['x-forwarded-for'],
    trustProxy: proxy.trust,
    proxyIp: proxy.ipToTrust,
  })
  return ip ?? undefined
}
