import { ROUTES } from '../../../../../contract/routes'
import { rotateEndpointSecret } from '../../../../../features/webhooks/endpoints'
import { COUNTED, ownersWebhookScope } from '../../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../../http/respond'
import { defineRoute } from '../../../../../http/route'
import { refuseWebhook } from '../../../../../http/webhook-failures'

/** POST /orgs/:orgId/webhooks/:endpointId/rotate-secret (full authentication; owners): a new secret, shown once; the previous one signs beside it for webhooks.secretOverlapMs. */
export default defineRoute(ROUTES.orgWebhookRotateSecret, [COUNTED], async ({ ctx, user, params }) => {
  const result = await rotateEndpointSecret(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), params.endpointId)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint, secret: result.secret! })
})
