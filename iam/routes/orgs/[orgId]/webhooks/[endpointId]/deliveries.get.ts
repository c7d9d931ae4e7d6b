import { ROUTES } from '../../../../../contract/routes'
import { listDeliveries } from '../../../../../features/webhooks/deliveries'
import { ownersWebhookScope } from '../../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../../http/respond'
import { defineRoute } from '../../../../../http/route'
import { refuseWebhook } from '../../../../../http/webhook-failures'

/** GET /orgs/:orgId/webhooks/:endpointId/deliveries?status&limit (full authentication; owners): the delivery log, newest first. */
export default defineRoute(ROUTES.orgWebhookDeliveries, [], async ({ ctx, user, params, query }) => {
  const deliveries = await listDeliveries(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId, query)
  if (!deliveries) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ deliveries })
})
