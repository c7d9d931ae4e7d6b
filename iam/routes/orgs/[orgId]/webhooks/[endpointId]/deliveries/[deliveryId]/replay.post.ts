import { ROUTES } from '../../../../../../../contract/routes'
import { replayDelivery } from '../../../../../../../features/webhooks/deliveries'
import { COUNTED, ownersWebhookScope } from '../../../../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../../../../http/respond'
import { defineRoute } from '../../../../../../../http/route'
import { refuseWebhook } from '../../../../../../../http/webhook-failures'

/** POST /orgs/:orgId/webhooks/:endpointId/deliveries/:deliveryId/replay (full authentication; owners): one delivery sent again, its schedule started over. */
export default defineRoute(ROUTES.orgWebhookReplayOne, [COUNTED], async ({ ctx, user, params }) => {
  const result = await replayDelivery(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId, params.deliveryId)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ replayed: 1 as const })
})
