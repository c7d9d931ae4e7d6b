import { ROUTES } from '../../../../contract/routes'
import { rotateEndpointSecret } from '../../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** POST /admin/webhooks/:endpointId/rotate-secret (platform administrators, a recent sign-in): a new secret, shown once; the previous one signs beside it for webhooks.secretOverlapMs. */
export default defineRoute(ROUTES.adminWebhookRotateSecret, [], async ({ ctx, params }) => {
  const result = await rotateEndpointSecret(ctx, PLATFORM, params.endpointId)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint, secret: result.secret! })
})
