import { ROUTES } from '../../../../../contract/routes'
import { replayRange } from '../../../../../features/webhooks/deliveries'
import { COUNTED, ownersWebhookScope } from '../../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../../http/respond'
import { body, defineRoute } from '../../../../../http/route'
import { refuseWebhook } from '../../../../../http/webhook-failures'

/** POST /orgs/:orgId/webhooks/:endpointId/replay `{ since, until?, delivered? }` (full authentication; owners): the dead deliveries of a time range sent again. */
export default defineRoute(ROUTES.orgWebhookReplay, [body(), COUNTED], async ({ ctx, user, params, body }) => {
  const scope = await ownersWebhookScope(ctx, params.orgId, user.userId)
  const result = await replayRange(ctx, scope, params.endpointId, { since: new Date(body.since), until: body.until ? new Date(body.until) : null, delivered: body.delivered ?? false })
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ replayed: result.replayed })
})
