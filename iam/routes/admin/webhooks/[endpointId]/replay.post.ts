import { ROUTES } from '../../../../contract/routes'
import { replayRange } from '../../../../features/webhooks/deliveries'
import { PLATFORM } from '../../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../../http/respond'
import { body, defineRoute } from '../../../../http/route'
import { refuseWebhook } from '../../../../http/webhook-failures'

/** POST /admin/webhooks/:endpointId/replay `{ since, until?, delivered? }` (platform administrators, a recent sign-in): the dead deliveries of a time range sent again. */
export default defineRoute(ROUTES.adminWebhookReplay, [body()], async ({ ctx, params, body }) => {
  const result = await replayRange(ctx, PLATFORM, params.endpointId, { since: new Date(body.since), until: body.until ? new Date(body.until) : null, delivered: body.delivered ?? false })
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ replayed: result.replayed })
})
