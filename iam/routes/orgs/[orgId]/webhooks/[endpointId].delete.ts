import { ROUTES } from '../../../../contract/routes'
import { deleteEndpoint } from '../../../../features/webhooks/endpoints'
import { ownersWebhookScope } from '../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** DELETE /orgs/:orgId/webhooks/:endpointId (full authentication; owners): the endpoint, its deliveries and their log. */
export default defineRoute(ROUTES.orgWebhookDelete, [], async ({ ctx, user, params }) => {
  if (!(await deleteEndpoint(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId))) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ deleted: true as const })
})
