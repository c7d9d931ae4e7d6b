import { ROUTES } from '../../../../../contract/routes'
import { queueTestEvent } from '../../../../../features/webhooks/endpoints'
import { COUNTED, ownersWebhookScope } from '../../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../../http/respond'
import { defineRoute } from '../../../../../http/route'
import { refuseWebhook } from '../../../../../http/webhook-failures'

/** POST /orgs/:orgId/webhooks/:endpointId/test (full authentication; owners): a `webhook.test` event queued for this endpoint alone. */
export default defineRoute(ROUTES.orgWebhookTest, [COUNTED], async ({ ctx, user, params }) => {
  const queued = await queueTestEvent(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId)
  if (!queued) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope(queued)
})
