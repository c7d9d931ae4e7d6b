import { defineEventHandler, getRequestHeader, setResponseHeader, setResponseStatus } from 'h3'
import { createIpAllowList, mayReadMetrics } from '../../shared/metrics-access'
import { clientIpOf, isFromProxyWithoutClient } from '../utils/client-ip'
import { useGatewayConfig } from '../utils/gateway-config'
import { gatewayRegistry } from '../utils/metrics'

/** GET /metrics: the gateway's Prometheus text, with the IAM's access rule (metrics.allow or metrics.token); 403 otherwise. */
export default defineEventHandler(async (event) => {
  const { metrics } = useGatewayConfig()
  const clientIp = clientIpOf(event)
  const allowed =
    clientIp !== undefined &&
    mayReadMetrics({
      clientIp,
      proxyWithoutClient: isFromProxyWithoutClient(event),
      authorization: getRequestHeader(event, 'authorization'),
      isAllowedIp: createIpAllowList(metrics.allow),
      token: metrics.token,
    })
  setResponseHeader(event, 'cache-control', 'no-store')
  if (!allowed) {
    setResponseStatus(event, 403)
    return { error: 'Forbidden' }
  }
  const registry = gatewayRegistry()
  setResponseHeader(event, 'content-type', registry.contentType)
  return registry.metrics()
})
