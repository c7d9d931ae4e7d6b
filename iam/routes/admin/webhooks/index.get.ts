import { ROUTES } from '../../../contract/routes'
import { listEndpoints } from '../../../features/webhooks/endpoints'
import { PLATFORM } from '../../../features/webhooks/endpoints-repo'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/webhooks (platform administrators, a recent sign-in): every endpoint with its success rate. */
export default defineRoute(ROUTES.adminWebhooks, [], async ({ ctx }) => okEnvelope(await listEndpoints(ctx, PLATFORM)))
