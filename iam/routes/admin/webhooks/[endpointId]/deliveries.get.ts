import { ROUTES } from '../../../../contract/routes'
import { listDeliveries } from '../../../../features/webhooks/deliveries'
import { PLATFORM } from '../../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** GET /admin/webhooks/:endpointId/deliveries?status&limit (platform administrators, a recent sign-in): the delivery log, newest first. */
export default defineRoute(ROUTES.adminWebhookDeliveries, [], async ({ ctx, params, query }) => {
  const deliveries = await listDeliveries(ctx, PLATFORM, params.endpointId, query)
  if (!deliveries) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ deliveries })
})
