import { ROUTES } from '../../../contract/routes'
import { updateEndpoint } from '../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute } from '../../../http/route'
import { refuseWebhook } from '../../../http/webhook-failures'

/** PUT /admin/webhooks/:endpointId (platform administrators, a recent sign-in): URL, types, description; `enabled` on or off. */
export default defineRoute(ROUTES.adminWebhookUpdate, [body({ markupCheck: false })], async ({ ctx, params, body }) => {
  const result = await updateEndpoint(ctx, PLATFORM, params.endpointId, body)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint })
})
