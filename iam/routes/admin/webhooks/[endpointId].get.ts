import { ROUTES } from '../../../contract/routes'
import { readEndpoint } from '../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'
import { refuseWebhook } from '../../../http/webhook-failures'

/** GET /admin/webhooks/:endpointId (platform administrators, a recent sign-in): one endpoint with its success rate. */
export default defineRoute(ROUTES.adminWebhook, [], async ({ ctx, params }) => {
  const endpoint = await readEndpoint(ctx, PLATFORM, params.endpointId)
  if (!endpoint) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ endpoint })
})
