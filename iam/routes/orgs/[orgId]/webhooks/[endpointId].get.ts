import { ROUTES } from '../../../../contract/routes'
import { readEndpoint } from '../../../../features/webhooks/endpoints'
import { ownersWebhookScope } from '../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** GET /orgs/:orgId/webhooks/:endpointId (full authentication; owners): one of the organization's endpoints. */
export default defineRoute(ROUTES.orgWebhook, [], async ({ ctx, user, params }) => {
  const endpoint = await readEndpoint(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId)
  if (!endpoint) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ endpoint })
})
