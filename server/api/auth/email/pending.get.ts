/** GET /api/auth/email/pending (signed in) -> IAM GET /update/email/pending: `{ data: { pending: { sentTo, expiresAt } | null } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'pendingEmailChange', {})))
