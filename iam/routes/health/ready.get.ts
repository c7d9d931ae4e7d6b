import { setResponseHeader, setResponseStatus } from 'h3'
import type { ErrorCode } from '../../contract/error-codes'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { checkReadiness } from '../../features/health/readiness'
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../lib/outage'
import { defineRoute } from '../../http/route'

/**
 * GET /health/ready (docs/operations.md): 200 `{ status: "ready", checks }` or 503
 * `{ status: "unavailable", checks }` naming the dependency that is down. HMAC-exempt from any
 * address (route table `hmac: false`): it says up or down per dependency and nothing more.
 */
export default defineRoute(ROUTES.healthReady, [], async ({ event }) => {
  const { ready, checks } = await checkReadiness(useIam())
  setResponseHeader(event, 'cache-control', 'no-store')
  if (ready) return { status: 'ready', checks }
  setResponseStatus(event, 503)
  setResponseHeader(event, 'retry-after', OUTAGE_RETRY_AFTER_SECONDS)
  return { status: 'unavailable', checks, code: 'service_unavailable' satisfies ErrorCode }
})
