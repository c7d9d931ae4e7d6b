import { ROUTES } from '../../../contract/routes'
import { deleteEndpoint } from '../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'
import { refuseWebhook } from '../../../http/webhook-failures'

/** DELETE /admin/webhooks/:endpointId (platform administrators, a recent sign-in): the endpoint, its deliveries and their log. */
export default defineRoute(ROUTES.adminWebhookDelete, [], async ({ ctx, params }) => {
  if (!(await deleteEndpoint(ctx, PLATFORM, params.endpointId))) return refuseWebhook({ code: 'webhook_not_found' })
  return okEnvelope({ deleted: true as const })
})
