/** GET /api/admin/webhooks -> IAM GET /admin/webhooks (platform administrators): every endpoint with its success rate, and the catalogue version. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'adminWebhooks', {})))
