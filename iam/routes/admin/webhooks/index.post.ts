import { ROUTES } from '../../../contract/routes'
import { createEndpoint } from '../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute } from '../../../http/route'
import { refuseWebhook } from '../../../http/webhook-failures'

/**
 * POST /admin/webhooks `{ url, eventTypes, description?, enabled? }` (platform administrators, a
 * recent sign-in): the endpoint and its signing secret, which no later answer shows again.
 * The description is plain text, markup included (control characters are refused, iam/contract/text.ts;
 * the console shows it escaped): it is left out of the markup check that bans a device for markup
 * in free text (http/route.ts), as an administrator writes it.
 */
export default defineRoute(ROUTES.adminWebhookCreate, [body({ markupCheck: false })], async ({ ctx, body }) => {
  const result = await createEndpoint(ctx, PLATFORM, body)
  if (!result.ok) return refuseWebhook(result)
  return okEnvelope({ endpoint: result.endpoint, secret: result.secret! })
})
