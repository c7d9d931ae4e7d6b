import { getRequestHeader, setResponseHeader } from 'h3'
import { ROUTES } from '../contract/routes'
import { useIam } from '../context'
import { httpFail } from '../http/respond'
import { getClientIp } from '../http/request'
import { isProxyWithoutClient } from '../../shared/ip'
import { createIpAllowList, mayReadMetrics } from '../../shared/metrics-access'
import { useIamMetrics } from '../lib/metrics'
import { defineRoute } from '../http/route'

/**
 * GET /metrics: Prometheus text to service.metrics.allow (never to the trusted proxy's own
 * address, lib/metrics-access.ts) or the metrics token; 403 otherwise.
 */
export default defineRoute(ROUTES.metrics, [], async ({ event }) => {
  const { config } = useIam()
  const { req } = event.node
  const allowed = mayReadMetrics({
    clientIp: getClientIp(event),
    proxyWithoutClient: isProxyWithoutClient({
      socketIp: req.socket?.remoteAddress,
      forwardedFor: req.headers['x-forwarded-for'],
      trustProxy: config.service.proxy.trust,
      proxyIp: config.service.proxy.ipToTrust,
    }),
    authorization: getRequestHeader(event, 'authorization'),
    // a few entries, built per scrape (every 15 s or so): not worth a cache
    isAllowedIp: createIpAllowList(config.service.metrics.allow),
    token: config.secrets.metricsToken,
  })
  if (!allowed) httpFail(403, { error: 'Forbidden', code: 'forbidden' })
  const { registry } = useIamMetrics()
  setResponseHeader(event, 'content-type', registry.contentType)
  setResponseHeader(event, 'cache-control', 'no-store')
  return registry.metrics()
})
