import { ROUTES } from '../../../../contract/routes'
import { createEndpoint } from '../../../../features/webhooks/endpoints'
import { COUNTED, ownersWebhookScope } from '../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../http/respond'
import { body, defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/**
 * POST /orgs/:orgId/webhooks `{ url, eventTypes, description?, enabled? }` (full authentication;
 * owners): an endpoint hearing the organization's own events, and its signing secret, which no later
 * answer shows again. The description is plain text as on the admin route (left out of the markup
 * check that bans a device; control characters refused; shown escaped).
 */
export default defineRoute(ROUTES.orgWebhookCreate, [body({ markupCheck: false }), COUNTED], async ({ ctx, user, params, body }) => {
  const result = await createEndpoint(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId), body)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint, secret: result.secret! })
})
