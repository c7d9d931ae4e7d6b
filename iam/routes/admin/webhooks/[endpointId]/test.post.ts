import { ROUTES } from '../../../../contract/routes'
import { queueTestEvent } from '../../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** POST /admin/webhooks/:endpointId/test (platform administrators, a recent sign-in): a `webhook.test` event queued for this endpoint alone. */
export default defineRoute(ROUTES.adminWebhookTest, [], async ({ ctx, params }) => {
  const queued = await queueTestEvent(ctx, PLATFORM, params.endpointId)
  if (!queued) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope(queued)
})
