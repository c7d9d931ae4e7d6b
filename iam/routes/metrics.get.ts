import { defineEventHandler, getRequestHeader, setResponseHeader } from 'h3'
import { useIam } from '../context'
import { httpFail } from '../http/respond'
import { getClientIp } from '../http/request'
import { createIpAllowList, mayReadMetrics } from '../lib/metrics-access'
import { useIamMetrics } from '../lib/metrics'

/** GET /metrics (DESIGN section 6): Prometheus text to service.metrics.allow or the metrics token; 403 otherwise. */
export default defineEventHandler(async (event) => {
  const { config } = useIam()
  const allowed = mayReadMetrics({
    clientIp: getClientIp(event),
    authorization: getRequestHeader(event, 'authorization'),
    // a few entries, built per scrape (every 15 s or so): not worth a cache
    isAllowedIp: createIpAllowList(config.service.metrics.allow),
    token: config.secrets.metricsToken,
  })
  if (!allowed) httpFail(403, { error: 'Forbidden' })
  const { registry } = useIamMetrics()
  setResponseHeader(event, 'content-type', registry.contentType)
  setResponseHeader(event, 'cache-control', 'no-store')
  return registry.metrics()
})
