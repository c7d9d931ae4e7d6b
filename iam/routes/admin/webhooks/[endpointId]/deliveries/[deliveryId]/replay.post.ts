import { ROUTES } from '../../../../../../contract/routes'
import { replayDelivery } from '../../../../../../features/webhooks/deliveries'
import { PLATFORM } from '../../../../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../../../../http/respond'
import { defineRoute } from '../../../../../../http/route'
import { refuseWebhook } from '../../../../../../http/webhook-failures'

/** POST /admin/webhooks/:endpointId/deliveries/:deliveryId/replay (platform administrators, a recent sign-in): one delivery sent again, its schedule started over. */
export default defineRoute(ROUTES.adminWebhookReplayOne, [], async ({ ctx, params }) => {
  const result = await replayDelivery(ctx, PLATFORM, params.endpointId, params.deliveryId)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ replayed: 1 as const })
})
