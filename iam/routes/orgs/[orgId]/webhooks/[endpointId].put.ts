import { ROUTES } from '../../../../contract/routes'
import { updateEndpoint } from '../../../../features/webhooks/endpoints'
import { COUNTED, ownersWebhookScope } from '../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../http/respond'
import { body, defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** PUT /orgs/:orgId/webhooks/:endpointId (full authentication; owners): URL, types, description; `enabled` on or off. */
export default defineRoute(ROUTES.orgWebhookUpdate, [body({ markupCheck: false }), COUNTED], async ({ ctx, user, params, body }) => {
  const result = await updateEndpoint(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId, body)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint })
})
