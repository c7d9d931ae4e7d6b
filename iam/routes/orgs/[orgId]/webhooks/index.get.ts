import { ROUTES } from '../../../../contract/routes'
import { listEndpoints } from '../../../../features/webhooks/endpoints'
import { ownersWebhookScope } from '../../../../http/org-webhook-scope'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** GET /orgs/:orgId/webhooks (full authentication; owners): the organization's endpoints with their success rates. */
export default defineRoute(ROUTES.orgWebhooks, [], async ({ ctx, user, params }) => okEnvelope(await listEndpoints(ctx, await ownersWebhookScope(ctx, params.orgId, user.userId))))
